#include "passes/quant/ImportedQDQ.h"

#include "IR/ShapeInference.h"

#include <cmath>

namespace kiln {

llvm::Optional<QuantParams> qdqParams(const Node &N) {
  if (!(N.isOp("quantize") || N.isOp("dequantize")) || N.numOperands() < 2)
    return llvm::None;
  const Tensor *S = N.operand(1) ? N.operand(1)->constant() : nullptr;
  const Value *ZV = N.numOperands() > 2 ? N.operand(2) : nullptr;
  const Tensor *Z = ZV ? ZV->constant() : nullptr;
  if (!S || S->type().rank() > 1 || (ZV && !Z) ||
      (Z && Z->numElements() != S->numElements()))
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
    P.ZeroPoints.push_back(Z ? Z->asInt(I) : 0);
  }
  return P;
}

} // namespace kiln
