// Calibration methods: how an observer's min/max and histogram become the
// range [lo, hi] an activation is quantized over.
//   minmax      the observed [min, max]
//   percentile  [value at (100-p)%, value at p%] of the histogram (bin edges)
//   entropy     TensorRT's KL-divergence threshold t on |x|, range [-t, t]
//   mse         the threshold t on |x| whose int8 fake-quantization has the
//               least squared error over the histogram, range [-t, t]
// Thresholds are clipped to [min, max]. Each method is a pure function of the
// observer, so exactly merged observers give exactly the same ranges.
#pragma once

#include "passes/quant/TensorObserver.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln {

enum class CalibrationMethod { MinMax, Percentile, Entropy, Mse };

llvm::StringRef calibrationMethodName(CalibrationMethod M);
llvm::Optional<CalibrationMethod> parseCalibrationMethod(llvm::StringRef Name);

struct CalibrationMethodOptions {
  CalibrationMethod Method = CalibrationMethod::Percentile;
  /// For percentile: the share of values inside the range, in (0, 100].
  double Percentile = 99.99;
};

struct ActivationRange {
  double Lo = 0, Hi = 0;
};

ActivationRange chooseRange(const TensorObserver &O,
                            const CalibrationMethodOptions &Opts);

ActivationRange percentileRange(const TensorObserver &O, double Percentile);
ActivationRange entropyRange(const TensorObserver &O);
ActivationRange mseRange(const TensorObserver &O);

/// The |x| histogram of O: bin k counts values with |x| in about
/// [k*w, (k+1)*w), k in [0, bins/2) (the two halves of O folded).
std::vector<uint64_t> foldedMagnitudes(const TensorObserver &O);
/// [-T, T] clipped to the observed [min, max].
ActivationRange clipToObserved(const TensorObserver &O, double T);

} // namespace kiln
