#include "passes/quant/ImportedQDQ.h"

#include "IR/ShapeInference.h"

#include <cmath>

namespace kiln {

/// The value every element of V holds when V is constant_of_shape (through
/// casts to an integer type), as exporters write wide zero points: a fill
/// that fold-constants leaves alone because it would grow the model.
static llvm::Optional<int64_t> filledInteger(const Value *V) {
  const Node *N = V->producer();
  while (N && N->isOp("cast") && isIntegerType(N->result()->type().Elem))
    N = N->operand(0)->producer();
  if (!N || !N->isOp("constant_of_shape") || !N->operand(0)->constant())
    return llvm::None;
  const Tensor &Fill = N->getTensor("value");
  if (Fill.numElements() != 1 || !isIntegerType(Fill.type().Elem))
    return llvm::None;
  return Fill.asInt(0);
}

llvm::Optional<QuantParams> qdqParams(const Node &N) {
  if (!(N.isOp("quantize") || N.isOp("dequantize")) || N.numOperands() < 2)
    return llvm::None;
  const Tensor *S = N.operand(1) ? N.operand(1)->constant() : nullptr;
  const Value *ZV = N.numOperands() > 2 ? N.operand(2) : nullptr;
  const Tensor *Z = ZV ? ZV->constant() : nullptr;
  llvm::Optional<int64_t> Fill =
      ZV && !Z && ZV->type().isStatic() ? filledInteger(ZV) : llvm::None;
  if (!S || S->type().rank() > 1 || S->numElements() == 0 || (ZV && !Z && !Fill) ||
      (Z && Z->numElements() != S->numElements()) ||
      (Fill && numElements(ZV->type().Dims).getValueOr(-1) != S->numElements()))
    return llvm::None;
  QuantParams P;
  if (S->type().rank() == 1) {
    auto Axis = normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank());
    if (!Axis) {
      llvm::consumeError(Axis.takeError());
      return llvm::None;
    }
    P.Axis = *Axis;
  }
  for (int64_t I = 0; I < S->numElements(); ++I) {
    double Scale = S->asDouble(I);
    if (!std::isfinite(Scale) || !(Scale > 0))
      return llvm::None;
    P.Scales.push_back(float(Scale));
    P.ZeroPoints.push_back(Z ? Z->asInt(I) : Fill.getValueOr(0));
  }
  return P;
}

} // namespace kiln
