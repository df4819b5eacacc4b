#include "passes/quant/TensorObserver.h"

#include "IR/FloatFormat.h"
#include "Support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

bool TensorObserver::validBinCount(uint64_t Bins) {
  return Bins >= MinBins && Bins <= MaxBins && (Bins & (Bins - 1)) == 0;
}

TensorObserver::TensorObserver(uint32_t Bins) : Counts(Bins, 0) {
  while ((uint32_t(1) << Log2Bins) < Bins)
    ++Log2Bins;
}

int32_t rangeExponentFor(double AbsMax) {
  if (!(AbsMax > 0))
    return TensorObserver::MinExponent;
  int E = 0;
  std::frexp(AbsMax, &E); // AbsMax = m * 2^E, m in [0.5, 1): AbsMax < 2^E
  return std::max<int32_t>(TensorObserver::MinExponent, E);
}

double TensorObserver::binWidth() const {
  return std::ldexp(1.0, Exponent + 1 - Log2Bins);
}

double TensorObserver::binEdge(int64_t I) const {
  return double(I - int64_t(bins() / 2)) * binWidth();
}

void TensorObserver::widenTo(int32_t E) {
  if (E <= Exponent)
    return;
  // Each doubling folds pairs of bins towards the middle; after Log2Bins + 1
  // doublings nothing moves any more, so the loop is bounded.
  int Steps = std::min(E - Exponent, Log2Bins + 1);
  int64_t Half = int64_t(bins() / 2);
  for (int S = 0; S < Steps; ++S) {
    std::vector<uint64_t> Wider(Counts.size(), 0);
    for (int64_t I = 0; I < int64_t(Counts.size()); ++I) {
      int64_t Offset = I - Half; // floor division by 2 of a possibly negative
      int64_t J = (Offset >= 0 ? Offset / 2 : -((-Offset + 1) / 2)) + Half;
      Wider[size_t(J)] += Counts[size_t(I)];
    }
    Counts.swap(Wider);
  }
  Exponent = E;
}

void TensorObserver::observe(const float *Data, size_t N) {
  float Lo = std::numeric_limits<float>::infinity();
  float Hi = -std::numeric_limits<float>::infinity();
  uint64_t Bad = 0;
  for (size_t I = 0; I < N; ++I) {
    float V = Data[I];
    if (!std::isfinite(V)) {
      ++Bad;
      continue;
    }
    Lo = std::min(Lo, V);
    Hi = std::max(Hi, V);
  }
  NonFinite += Bad;
  if (N == Bad)
    return;
  if (Finite == 0) {
    Min = Lo;
    Max = Hi;
  } else {
    Min = std::min(Min, Lo);
    Max = std::max(Max, Hi);
  }
  Finite += N - Bad;
  widenTo(rangeExponentFor(std::max(std::fabs(double(Lo)), std::fabs(double(Hi)))));
  // x * 2^(Log2Bins - 1 - E) is exact in double for every float x: the
  // factor is a power of two between 2^-118 and 2^143, so the product stays
  // a normal double with x's 24-bit significand.
  const double Scale = std::ldexp(1.0, Log2Bins - 1 - Exponent);
  const int64_t Half = int64_t(bins() / 2);
  uint64_t *C = Counts.data();
  for (size_t I = 0; I < N; ++I) {
    float V = Data[I];
    if (!std::isfinite(V))
      continue;
    // |x| < 2^E puts the bin in [0, bins). Half is added after the floor: a
    // tiny negative x plus Half would round up to Half in double.
    C[size_t(int64_t(std::floor(double(V) * Scale)) + Half)] += 1;
  }
}

void TensorObserver::merge(const TensorObserver &O) {
  NonFinite += O.NonFinite;
  if (O.Finite == 0)
    return;
  if (Finite == 0) {
    Min = O.Min;
    Max = O.Max;
  } else {
    Min = std::min(Min, O.Min);
    Max = std::max(Max, O.Max);
  }
  Finite += O.Finite;
  TensorObserver Other = O;
  int32_t E = std::max(Exponent, O.Exponent);
  widenTo(E);
  Other.widenTo(E);
  for (size_t I = 0; I < Counts.size(); ++I)
    Counts[I] += Other.Counts[I];
}

bool TensorObserver::operator==(const TensorObserver &O) const {
  return Counts == O.Counts && Finite == O.Finite && NonFinite == O.NonFinite &&
         Exponent == O.Exponent && (Finite == 0 || (Min == O.Min && Max == O.Max));
}

llvm::Expected<TensorObserver>
TensorObserver::fromParts(uint32_t Bins, float Min, float Max, uint64_t Finite,
                          uint64_t NonFinite, int32_t Exponent,
                          std::vector<uint64_t> Counts) {
  if (!validBinCount(Bins) || Counts.size() != Bins)
    return inputError("histogram has {0} bins; expected a power of two in "
                      "[{1}, {2}]",
                      Counts.size(), MinBins, MaxBins);
  if (Exponent < MinExponent || Exponent > MaxExponent)
    return inputError("histogram range exponent {0} is outside [{1}, {2}]",
                      Exponent, MinExponent, MaxExponent);
  uint64_t Sum = 0;
  for (uint64_t C : Counts) {
    if (C > std::numeric_limits<uint64_t>::max() - Sum)
      return inputError("histogram counts overflow");
    Sum += C;
  }
  if (Sum != Finite)
    return inputError("histogram counts sum to {0}, but {1} values were "
                      "observed",
                      Sum, Finite);
  if (Finite > 0) {
    if (!std::isfinite(Min) || !std::isfinite(Max) || Min > Max)
      return inputError("min {0} / max {1} are not an ordered finite pair",
                        formatFloat(Min), formatFloat(Max));
    double AbsMax = std::max(std::fabs(double(Min)), std::fabs(double(Max)));
    if (rangeExponentFor(AbsMax) > Exponent)
      return inputError("histogram range 2^{0} does not hold max |x| = {1}",
                        Exponent, formatDouble(AbsMax));
  }
  TensorObserver T(Bins);
  T.Min = Finite ? Min : 0.f;
  T.Max = Finite ? Max : 0.f;
  T.Finite = Finite;
  T.NonFinite = NonFinite;
  T.Exponent = Exponent;
  T.Counts = std::move(Counts);
  return T;
}

} // namespace kiln
