// Elementwise ops: activations, math, comparisons, numpy-broadcast binaries,
// select and cast.
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

#include <limits>

namespace kiln {

using Types = llvm::Expected<std::vector<TensorType>>;

static Types inferUnary(const Node &N) {
  return std::vector<TensorType>{N.operand(0)->type()};
}

static Types inferBroadcast(const Node &N, ElementType Elem) {
  Shape S = N.operand(0)->type().Dims;
  for (unsigned I = 1; I < N.numOperands(); ++I) {
    auto B = broadcastShapes(S, N.operand(I)->type().Dims);
    if (!B)
      return B.takeError();
    S = *B;
  }
  return std::vector<TensorType>{TensorType(Elem, S)};
}

static llvm::Error requireSameElem(const Node &N) {
  ElementType E = N.operand(0)->type().Elem;
  for (unsigned I = 1; I < N.numOperands(); ++I)
    if (N.operand(I)->type().Elem != E)
      return inputError("operands must share an element type, got {0} and {1}",
                        elementTypeName(E),
                        elementTypeName(N.operand(I)->type().Elem));
  return llvm::Error::success();
}

static Types inferArith(const Node &N) {
  return inferBroadcast(N, N.operand(0)->type().Elem);
}

static Types inferCompare(const Node &N) {
  return inferBroadcast(N, ElementType::Bool);
}

static Types inferWhere(const Node &N) {
  if (N.operand(0)->type().Elem != ElementType::Bool)
    return inputError("condition must be bool, got {0}",
                      toString(N.operand(0)->type()));
  if (N.operand(1)->type().Elem != N.operand(2)->type().Elem)
    return inputError("branches differ in element type");
  return inferBroadcast(N, N.operand(1)->type().Elem);
}

static Types inferCast(const Node &N) {
  auto Elem = parseElementType(N.getString("to"));
  if (!Elem)
    return inputError("unknown element type '{0}'", N.getString("to"));
  return std::vector<TensorType>{
      TensorType(*Elem, N.operand(0)->type().Dims)};
}

static Types inferClip(const Node &N) {
  for (unsigned I = 1; I < N.numOperands(); ++I)
    if (N.operand(I) && N.operand(I)->type().rank() != 0 &&
        numElements(N.operand(I)->type().Dims).getValueOr(0) != 1)
      return inputError("clip bounds must be scalars, got {0}",
                        toString(N.operand(I)->type()));
  return std::vector<TensorType>{N.operand(0)->type()};
}

static void unary(OpRegistry &R, const char *Name, const char *Summary) {
  OpBuilder(Name, "elementwise", Summary).operand("x").infer(inferUnary).into(R);
}

static void binary(OpRegistry &R, const char *Name, const char *Summary) {
  OpBuilder(Name, "elementwise", Summary)
      .operand("a").operand("b")
      .verify(requireSameElem).infer(inferArith).into(R);
}

static void compare(OpRegistry &R, const char *Name, const char *Summary) {
  OpBuilder(Name, "elementwise", Summary)
      .operand("a").operand("b")
      .verify(requireSameElem).infer(inferCompare).into(R);
}

void registerElementwiseOps(OpRegistry &R) {
  const double Inf = std::numeric_limits<double>::infinity();
  unary(R, "relu", "max(x, 0)");
  unary(R, "sigmoid", "1 / (1 + exp(-x))");
  unary(R, "tanh", "hyperbolic tangent");
  unary(R, "exp", "e^x");
  unary(R, "log", "natural logarithm");
  unary(R, "sqrt", "square root");
  unary(R, "neg", "-x");
  unary(R, "abs", "|x|");
  unary(R, "floor", "round down");
  unary(R, "ceil", "round up");
  unary(R, "reciprocal", "1 / x");
  unary(R, "erf", "error function");
  unary(R, "softplus", "log(1 + exp(x))");
  unary(R, "mish", "x * tanh(softplus(x))");
  unary(R, "hard_swish", "x * relu6(x + 3) / 6");
  unary(R, "identity", "x");
  unary(R, "sign", "-1, 0 or 1");
  OpBuilder("leaky_relu", "elementwise", "x if x >= 0 else alpha * x")
      .operand("x").attr("alpha", AttrKind::Float, 0.01)
      .infer(inferUnary).into(R);
  OpBuilder("elu", "elementwise", "x if x > 0 else alpha * (exp(x) - 1)")
      .operand("x").attr("alpha", AttrKind::Float, 1.0)
      .infer(inferUnary).into(R);
  OpBuilder("celu", "elementwise", "max(0,x) + min(0, alpha*(exp(x/alpha)-1))")
      .operand("x").attr("alpha", AttrKind::Float, 1.0)
      .infer(inferUnary).into(R);
  OpBuilder("selu", "elementwise", "gamma * (x if x > 0 else alpha * (exp(x) - 1))")
      .operand("x")
      .attr("alpha", AttrKind::Float, 1.67326319217681884765625)
      .attr("gamma", AttrKind::Float, 1.05070102214813232421875)
      .infer(inferUnary).into(R);
  OpBuilder("hard_sigmoid", "elementwise", "max(0, min(1, alpha * x + beta))")
      .operand("x")
      .attr("alpha", AttrKind::Float, 0.2)
      .attr("beta", AttrKind::Float, 0.5)
      .infer(inferUnary).into(R);
  OpBuilder("gelu", "elementwise", "x * Phi(x); approximate = none or tanh")
      .operand("x").attr("approximate", AttrKind::String, std::string("none"))
      .infer(inferUnary).into(R);
  OpBuilder("clip", "elementwise",
            "min(max(x, min), max); bounds from attributes or scalar operands")
      .operand("x").optional("min").optional("max")
      .attr("min", AttrKind::Float, -Inf)
      .attr("max", AttrKind::Float, Inf)
      .infer(inferClip).into(R);
  OpBuilder("prelu", "elementwise", "x if x >= 0 else slope * x (slope broadcasts)")
      .operand("x").operand("slope")
      .verify(requireSameElem).infer(inferArith).into(R);
  OpBuilder("add", "elementwise", "a + b, then the fused activation (if any)")
      .operand("a").operand("b")
      .fusedActivation()
      .verify([](const Node &N) -> llvm::Error {
        if (llvm::Error E = requireSameElem(N))
          return E;
        return verifyFusedActivation(N);
      })
      .infer(inferArith).into(R);
  binary(R, "sub", "a - b");
  binary(R, "mul", "a * b");
  binary(R, "div", "a / b (integer division truncates)");
  OpBuilder("mod", "elementwise",
            "remainder of a / b: with the divisor's sign (Python's %, "
            "fmod = 0) or the dividend's (C's fmod, fmod = 1)")
      .operand("a").operand("b")
      .attr("fmod", AttrKind::Int, int64_t(0), "0: floored, 1: truncated")
      .verify(requireSameElem).infer(inferArith).into(R);
  binary(R, "min", "elementwise minimum");
  binary(R, "max", "elementwise maximum");
  OpBuilder("pow", "elementwise", "a ^ b; b may have another element type")
      .operand("a").operand("b").infer(inferArith).into(R);
  compare(R, "equal", "a == b");
  compare(R, "less", "a < b");
  compare(R, "greater", "a > b");
  OpBuilder("where", "elementwise", "cond ? a : b")
      .operand("cond").operand("a").operand("b")
      .infer(inferWhere).into(R);
  OpBuilder("cast", "elementwise", "converts to element type 'to'")
      .operand("x").required("to", AttrKind::String, "element type name, e.g. f16")
      .infer(inferCast).into(R);
}

} // namespace kiln
