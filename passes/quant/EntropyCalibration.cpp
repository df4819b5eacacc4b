// entropy calibration, TensorRT's method as MXNet and ONNX Runtime implement
// it, on the |x| histogram: for each candidate threshold (the first I bins),
// P is the histogram clipped at I (outliers added to the last bin), Q is P's
// bins merged into L quantization levels and spread back over the non-empty
// bins; the threshold with the least KL(P || Q) wins. L is 128 for a signed
// tensor (half of int8's levels per side) and 256 for a non-negative one
// (asymmetric int8 gives all its levels to [0, t]).
//
// The search is quadratic in the bins (each candidate costs its own bins), so
// it runs on at most MaxSearchBins magnitude bins: a finer histogram (more
// than 8192 bins) has its adjacent bins summed first, exactly the histogram
// 8192 bins would have kept over the same range. The threshold's step stays
// 1/4096 of the range, 32 times finer than int8's, and 65,536 bins cost what
// 8192 do instead of 64 times as much.
#include "passes/quant/CalibrationMethod.h"

#include <cmath>
#include <limits>
#include <utility>

namespace kiln {

namespace {
/// MXNet's _smooth_distribution: empty bins get Eps, taken evenly from the
/// others, so that KL stays finite. False when every bin is empty.
bool smooth(std::vector<double> &D) {
  constexpr double Eps = 0.0001;
  size_t Zeros = 0;
  for (double V : D)
    Zeros += V == 0;
  size_t NonZeros = D.size() - Zeros;
  if (NonZeros == 0)
    return false;
  double Eps1 = Eps * double(Zeros) / double(NonZeros);
  for (double &V : D)
    V += V == 0 ? Eps : -Eps1;
  return true;
}

/// KL(P || Q) after normalizing both (scipy.stats.entropy).
double divergence(const std::vector<double> &P, const std::vector<double> &Q) {
  double SP = 0, SQ = 0;
  for (size_t K = 0; K < P.size(); ++K) {
    SP += P[K];
    SQ += Q[K];
  }
  double KL = 0;
  for (size_t K = 0; K < P.size(); ++K)
    if (P[K] > 0)
      KL += P[K] / SP * std::log((P[K] / SP) / (Q[K] / SQ));
  return KL;
}

double klForThreshold(const std::vector<uint64_t> &H, size_t I, size_t Levels,
                      uint64_t Outliers) {
  std::vector<double> P(H.begin(), H.begin() + long(I));
  P[I - 1] += double(Outliers);
  size_t Merged = I / Levels;
  std::vector<double> Q(I, 0.0);
  for (size_t J = 0; J < Levels; ++J) {
    size_t Start = J * Merged, Stop = J + 1 == Levels ? I : Start + Merged;
    double Total = 0;
    size_t NonZero = 0;
    for (size_t K = Start; K < Stop; ++K) {
      Total += double(H[K]);
      NonZero += P[K] != 0;
    }
    if (NonZero)
      for (size_t K = Start; K < Stop; ++K)
        Q[K] = P[K] != 0 ? Total / double(NonZero) : 0.0;
  }
  if (!smooth(P) || !smooth(Q))
    return std::numeric_limits<double>::infinity();
  return divergence(P, Q);
}

/// Sums groups of adjacent magnitude bins so that at most MaxBins remain;
/// returns the group size (a power of two, as the bin counts are).
size_t coarsen(std::vector<uint64_t> &H, size_t MaxBins) {
  size_t Group = 1;
  while (H.size() / Group > MaxBins)
    Group *= 2;
  if (Group == 1)
    return 1;
  std::vector<uint64_t> Coarse(H.size() / Group, 0);
  for (size_t K = 0; K < H.size(); ++K)
    Coarse[K / Group] += H[K];
  H = std::move(Coarse);
  return Group;
}
} // namespace

ActivationRange entropyRange(const TensorObserver &O) {
  constexpr size_t MaxSearchBins = 4096;
  std::vector<uint64_t> H = foldedMagnitudes(O);
  size_t Group = coarsen(H, MaxSearchBins);
  size_t Used = H.size();
  while (Used > 0 && H[Used - 1] == 0)
    --Used;
  size_t Levels = O.min() < 0 ? 128 : 256;
  if (Used <= Levels) // fewer occupied bins than levels: nothing to clip
    return {double(O.min()), double(O.max())};
  uint64_t Outliers = 0;
  for (size_t K = Levels; K < Used; ++K)
    Outliers += H[K];
  double Best = std::numeric_limits<double>::infinity();
  size_t BestI = Used;
  for (size_t I = Levels; I <= Used; ++I) {
    double KL = klForThreshold(H, I, Levels, Outliers);
    if (KL < Best) {
      Best = KL;
      BestI = I;
    }
    if (I < Used)
      Outliers -= H[I];
  }
  return clipToObserved(O, double(BestI * Group) * O.binWidth());
}

} // namespace kiln
