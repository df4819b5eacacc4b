// Weights and biases of int8 ops: planning their parameters from the float
// values, checking an annotated weight against the op that uses it, and
// replacing float constants by integer constants + dequantize.
#pragma once

#include "passes/quant/QuantizableOps.h"

#include "IR/Graph.h"

#include "llvm/ADT/Optional.h"

#include <vector>

namespace kiln {

/// Symmetric int8 parameters for float constant W along Axis (-1: one scale
/// for the whole tensor): scale[c] = max|w[c]| / 127, zp 0. None unless W is
/// an f32 constant whose Axis exists.
llvm::Optional<QuantParams> planWeightQuant(const Value *W, int64_t Axis);

/// The annotation of N's weight when it fits N's weight role (per axis along
/// Info.WeightAxis with one scale per channel, or a single scale; zero points
/// 0; positive finite scales). None otherwise.
llvm::Optional<QuantParams> matchWeight(const Node &N, const Int8OpInfo &Info);

struct QuantizedWeightValue {
  Value *Dequantized = nullptr;
  std::vector<float> Scales;
};

/// Replaces nothing: creates the i8 constant for annotated weight W (q =
/// clamp(round(w / s), -127, 127)) and its dequantize before Before.
QuantizedWeightValue quantizeAnnotatedWeight(Graph &G, Value *W, Node *Before);

/// The int32 form of bias B for an op with input scale InScale and weight
/// scales WScales: scale[c] = InScale * WScales[c], zp 0, then dequantize,
/// before Before. Null (B stays float) unless B is a 1-D f32 constant with
/// one value per weight scale (any length for a single scale).
Value *quantizeBias(Graph &G, Value *B, float InScale,
                    llvm::ArrayRef<float> WScales, Node *Before);

} // namespace kiln
