// QDQ ops: quantize (float -> i8/u8) and dequantize (i8/u8/i32 -> float),
// per tensor or per axis: q = saturate(round(x / scale) + zero_point);
// dynamic_quantize computes a per-tensor scale and zero point from its input
// at run time (ONNX DynamicQuantizeLinear, for u8 or i8).
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

namespace kiln {

static llvm::Error checkQuantParams(const Node &N) {
  const TensorType &X = N.operand(0)->type(), &S = N.operand(1)->type();
  if (S.rank() > 1)
    return inputError("scale must be a scalar or 1-D, got {0}", toString(S));
  if (S.rank() == 1) {
    auto Axis = normalizeAxis(N.getInt("axis"), X.rank());
    if (!Axis)
      return Axis.takeError();
    const Dim &D = X.Dims[size_t(*Axis)];
    if (D.isStatic() && S.Dims[0].isStatic() && D.size() != S.Dims[0].size())
      return inputError("{0} scales for axis {1} of size {2}", S.Dims[0].size(),
                        *Axis, D.size());
  }
  return llvm::Error::success();
}

void registerQuantOps(OpRegistry &R) {
  OpBuilder("quantize", "quant", "q = saturate(round_half_even(x / scale) + zp)")
      .operand("x").operand("scale").optional("zero_point")
      .attr("axis", AttrKind::Int, int64_t(1), "for per-axis scales")
      .attr("to", AttrKind::String, std::string("u8"), "used when zero_point is absent")
      .verify(checkQuantParams)
      .infer([](const Node &N) -> llvm::Expected<std::vector<TensorType>> {
        ElementType E = ElementType::U8;
        if (N.numOperands() > 2 && N.operand(2))
          E = N.operand(2)->type().Elem;
        else if (auto P = parseElementType(N.getString("to")))
          E = *P;
        return std::vector<TensorType>{TensorType(E, N.operand(0)->type().Dims)};
      }).into(R);
  OpBuilder("dynamic_quantize", "quant",
            "scale = (max(x,0) - min(x,0)) / (qmax - qmin), "
            "zp = saturate(round(qmin - min(x,0) / scale)), "
            "y = saturate(round(x / scale) + zp)")
      .operand("x").results(3, 3)
      .attr("to", AttrKind::String, std::string("u8"), "u8 (as ONNX) or i8")
      .verify([](const Node &N) -> llvm::Error {
        llvm::StringRef To = N.getString("to");
        if (To != "u8" && To != "i8")
          return inputError("to must be u8 or i8, got '{0}'", To);
        return llvm::Error::success();
      })
      .infer([](const Node &N) -> llvm::Expected<std::vector<TensorType>> {
        ElementType E = N.getString("to") == "i8" ? ElementType::I8 : ElementType::U8;
        return std::vector<TensorType>{
            TensorType(E, N.operand(0)->type().Dims),
            TensorType(ElementType::F32, {}), TensorType(E, {})};
      }).into(R);
  OpBuilder("dequantize", "quant", "x = (q - zp) * scale")
      .operand("q").operand("scale").optional("zero_point")
      .attr("axis", AttrKind::Int, int64_t(1))
      .verify(checkQuantParams)
      .infer([](const Node &N) -> llvm::Expected<std::vector<TensorType>> {
        return std::vector<TensorType>{
            TensorType(N.operand(1)->type().Elem, N.operand(0)->type().Dims)};
      }).into(R);
}

} // namespace kiln
