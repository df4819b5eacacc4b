// How far a tensor is from a reference: the numbers `kiln diff` reports and
// gates on.
#pragma once

#include "IR/Tensor.h"

#include <optional>

namespace kiln {

struct ErrorMetrics {
  // Over the elements where both sides are finite:
  double MaxAbs = 0;     // max |x - ref|
  double MaxRel = 0;     // MaxAbs / max |ref| (0 when ref is all zeros)
  double Cosine = 1;     // <x, ref> / (|x| |ref|); 1 when both are zero
  double SqnrDb = 0;     // 10 log10(sum ref^2 / sum (x - ref)^2); +inf if equal
  int64_t Elements = 0;
  // NaN elements of x and of ref, and infinite ones the other side does
  // not match (the same infinity on both sides agrees, and is left out of
  // the metrics). Where either is non-zero the metrics above describe only
  // part of the tensor, and no gate may pass.
  int64_t NonFinite = 0, RefNonFinite = 0;

  /// Folds another sample's metrics in (worst of each; a NaN metric stays).
  void mergeWorst(const ErrorMetrics &O);
  /// Whether every element and every metric is a number (SQNR may be +inf:
  /// the two sides are equal).
  bool allFinite() const;
};

/// Compares floating-point or integer tensors elementwise (as doubles).
/// nullopt when the element counts differ.
std::optional<ErrorMetrics> compareTensors(const Tensor &X, const Tensor &Ref);

} // namespace kiln
