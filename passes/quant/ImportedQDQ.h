// Reading the quantization a model arrived with: the parameters of an
// imported quantize/dequantize node, from its constant scale and zero point.
// Shared by adopt-imported-qdq and the reports that say a model arrived
// quantized.
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/Optional.h"

namespace kiln {

/// The parameters of quantize/dequantize N: per tensor (a rank-0 scale) or
/// per axis (a 1-D scale along N's axis, one per element of it), zero points
/// from the optional constant zero point (0 when absent; a constant_of_shape
/// fill counts as constant). None unless the scale and zero point are
/// constants of matching sizes and every scale is positive and finite.
llvm::Optional<QuantParams> qdqParams(const Node &N);

} // namespace kiln
