// mse calibration: among symmetric thresholds t = k * binWidth on |x| (up to
// max|x|), choose the one whose int8 quantization of the histogram (each bin
// standing at its center, clipped to [min, max]) has the least total squared
// error, counting both rounding inside the range and clipping outside it.
#include "passes/quant/CalibrationMethod.h"
#include "passes/quant/Int8Scheme.h"

#include <cmath>
#include <limits>

namespace kiln {

ActivationRange mseRange(const TensorObserver &O) {
  const std::vector<uint64_t> &C = O.counts();
  double W = O.binWidth();
  std::vector<std::pair<float, double>> Centers; // (value, count)
  for (size_t I = 0; I < C.size(); ++I)
    if (C[I]) {
      double V = O.binEdge(int64_t(I)) + W / 2;
      V = std::min(std::max(V, double(O.min())), double(O.max()));
      Centers.push_back({float(V), double(C[I])});
    }
  double AbsMax = std::max(std::fabs(double(O.min())), std::fabs(double(O.max())));
  ActivationRange Best{double(O.min()), double(O.max())};
  double BestErr = std::numeric_limits<double>::infinity();
  int64_t Steps = int64_t(std::ceil(AbsMax / W));
  for (int64_t K = 1; K <= Steps; ++K) {
    double T = K == Steps ? AbsMax : double(K) * W;
    ActivationRange R = clipToObserved(O, T);
    AffineQuant Q = activationQuant(R.Lo, R.Hi);
    double Err = 0;
    for (const auto &[V, N] : Centers) {
      double D = double(V) - double(fakeQuantize(V, Q));
      Err += N * D * D;
    }
    if (Err < BestErr) {
      BestErr = Err;
      Best = R;
    }
  }
  return Best;
}

} // namespace kiln
