// Building the QDQ form in the IR: quantize -> dequantize pairs on
// activations, and integer constants with a dequantize for weights and
// biases. Integer values carry their parameters in their type as well
// (i8[...] q(scale=..., zp=...)), so a backend reads them in one place.
#pragma once

#include "IR/Graph.h"

#include <string>

namespace kiln {

/// The node after N, or null when N is last (an insertion point "after N").
Node *nodeAfter(Node *N);

/// Sets the type of constant C (its tensor's type too), keeping its bytes.
void setConstantType(Value *C, const TensorType &T);
/// T without quantization parameters.
TensorType withoutQuant(TensorType T);

struct QDQPair {
  Value *Quantized;   // i8, annotated
  Value *Dequantized; // the float type of the input
};

/// quantize(V, scale, zp) -> dequantize with per-tensor P, before Before
/// (null: at the end). Names derive from V's.
QDQPair insertQDQ(Graph &G, Value *V, const QuantParams &P, Node *Before);

/// A constant holding Q (an integer tensor; its type gets P), then
/// dequantize to FloatElem along P.Axis, before Before. Returns the
/// dequantized value.
Value *insertDequantizedConstant(Graph &G, Tensor Q, const QuantParams &P,
                                 ElementType FloatElem, Node *Before,
                                 const std::string &Name);

} // namespace kiln
