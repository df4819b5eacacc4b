#include "passes/quant/CalibrationMethod.h"

#include <algorithm>
#include <cmath>

namespace kiln {

llvm::StringRef calibrationMethodName(CalibrationMethod M) {
  switch (M) {
  case CalibrationMethod::MinMax: return "minmax";
  case CalibrationMethod::Percentile: return "percentile";
  case CalibrationMethod::Entropy: return "entropy";
  case CalibrationMethod::Mse: return "mse";
  }
  return "minmax";
}

llvm::Optional<CalibrationMethod> parseCalibrationMethod(llvm::StringRef Name) {
  for (CalibrationMethod M :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
        CalibrationMethod::Entropy, CalibrationMethod::Mse})
    if (Name == calibrationMethodName(M))
      return M;
  return llvm::None;
}

ActivationRange chooseRange(const TensorObserver &O,
                            const CalibrationMethodOptions &Opts) {
  if (O.count() == 0)
    return {};
  switch (Opts.Method) {
  case CalibrationMethod::MinMax: return {double(O.min()), double(O.max())};
  case CalibrationMethod::Percentile: return percentileRange(O, Opts.Percentile);
  case CalibrationMethod::Entropy: return entropyRange(O);
  case CalibrationMethod::Mse: return mseRange(O);
  }
  return {};
}

ActivationRange percentileRange(const TensorObserver &O, double Percentile) {
  const std::vector<uint64_t> &C = O.counts();
  double N = double(O.count());
  double HiTarget = Percentile * N / 100.0;
  double LoTarget = (100.0 - Percentile) * N / 100.0;
  // hi: upper edge of the first bin where the cumulative count reaches p%;
  // lo: lower edge of the first bin where it exceeds (100-p)%.
  ActivationRange R{double(O.min()), double(O.max())};
  uint64_t Cum = 0;
  bool HaveLo = false;
  for (size_t I = 0; I < C.size(); ++I) {
    Cum += C[I];
    if (!HaveLo && double(Cum) > LoTarget) {
      R.Lo = std::max(R.Lo, O.binEdge(int64_t(I)));
      HaveLo = true;
    }
    if (double(Cum) >= HiTarget) {
      R.Hi = std::min(R.Hi, O.binEdge(int64_t(I) + 1));
      break;
    }
  }
  return R;
}

std::vector<uint64_t> foldedMagnitudes(const TensorObserver &O) {
  const std::vector<uint64_t> &C = O.counts();
  size_t Half = C.size() / 2;
  std::vector<uint64_t> H(Half);
  for (size_t K = 0; K < Half; ++K)
    H[K] = C[Half + K] + C[Half - 1 - K];
  return H;
}

ActivationRange clipToObserved(const TensorObserver &O, double T) {
  return {std::max(double(O.min()), -T), std::min(double(O.max()), T)};
}

} // namespace kiln
