// The fused-activation attributes shared by conv, conv_transpose, linear,
// gemm, matmul and add: their schema, validation and reading (see the header).
#include "IR/ops/FusedActivation.h"

#include "IR/Graph.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

#include <cmath>

namespace kiln {

static const struct {
  ActivationKind Kind;
  const char *Name;
} ActivationNames[] = {{ActivationKind::None, "none"},
                       {ActivationKind::Relu, "relu"},
                       {ActivationKind::Clip, "clip"},
                       {ActivationKind::LeakyRelu, "leaky_relu"},
                       {ActivationKind::HardSwish, "hard_swish"}};

llvm::StringRef activationName(ActivationKind K) {
  for (const auto &E : ActivationNames)
    if (E.Kind == K)
      return E.Name;
  return "none";
}

llvm::Optional<ActivationKind> parseActivationKind(llvm::StringRef Name) {
  for (const auto &E : ActivationNames)
    if (Name == E.Name)
      return E.Kind;
  return llvm::None;
}

AttrMap FusedActivation::toAttrs() const {
  AttrMap A;
  A["activation"] = activationName(Kind).str();
  if (Kind == ActivationKind::Clip) {
    A["activation_min"] = Min;
    A["activation_max"] = Max;
  }
  if (Kind == ActivationKind::LeakyRelu)
    A["activation_alpha"] = Alpha;
  return A;
}

OpBuilder &addFusedActivationAttrs(OpBuilder &B) {
  const double Inf = std::numeric_limits<double>::infinity();
  return B
      .attr("activation", AttrKind::String, std::string("none"),
            "fused activation: none, relu, clip, leaky_relu or hard_swish")
      .attr("activation_min", AttrKind::Float, -Inf, "clip lower bound")
      .attr("activation_max", AttrKind::Float, Inf, "clip upper bound")
      .attr("activation_alpha", AttrKind::Float, 0.01,
            "leaky_relu slope for x < 0");
}

llvm::Error verifyFusedActivation(const Node &N) {
  const std::string &Name = N.getString("activation");
  llvm::Optional<ActivationKind> K = parseActivationKind(Name);
  if (!K)
    return inputError("unknown activation '{0}'; expected none, relu, clip, "
                      "leaky_relu or hard_swish",
                      Name);
  bool HasBounds = N.hasAttr("activation_min") || N.hasAttr("activation_max");
  if (HasBounds && *K != ActivationKind::Clip)
    return inputError("activation_min/activation_max apply only to "
                      "activation=clip, not '{0}'",
                      Name);
  if (N.hasAttr("activation_alpha") && *K != ActivationKind::LeakyRelu)
    return inputError("activation_alpha applies only to "
                      "activation=leaky_relu, not '{0}'",
                      Name);
  double Min = N.getFloat("activation_min"), Max = N.getFloat("activation_max");
  if (std::isnan(Min) || std::isnan(Max) || Min > Max)
    return inputError("activation bounds must satisfy min <= max, got [{0}, "
                      "{1}]",
                      Min, Max);
  if (!std::isfinite(N.getFloat("activation_alpha")))
    return inputError("activation_alpha must be finite");
  if (*K != ActivationKind::None && N.numOperands() > 0 && N.operand(0) &&
      !isFloatType(N.operand(0)->type().Elem))
    return inputError("a fused activation needs a floating-point result, got "
                      "{0}",
                      elementTypeName(N.operand(0)->type().Elem));
  return llvm::Error::success();
}

FusedActivation readFusedActivation(const Node &N) {
  FusedActivation A;
  A.Kind = parseActivationKind(N.getString("activation"))
               .getValueOr(ActivationKind::None);
  A.Min = N.getFloat("activation_min");
  A.Max = N.getFloat("activation_max");
  A.Alpha = N.getFloat("activation_alpha");
  return A;
}

} // namespace kiln
