// The fused activation of conv, conv_transpose, linear, gemm, matmul and add,
// represented the way XNNPACK and TFLite do: an attribute on the producer
// instead of a separate node. relu6 and hardtanh are `clip` with bounds.
//   activation       string  none | relu | clip | leaky_relu | hard_swish
//   activation_min   float   clip lower bound (default -inf)
//   activation_max   float   clip upper bound (default +inf)
//   activation_alpha float   leaky_relu slope for x < 0 (default 0.01)
// The op definitions share this attribute list and its validation; the
// interpreter's kernels and the fusion passes read it with readFusedActivation.
#pragma once

#include "IR/Attribute.h"

#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <limits>

namespace kiln {

class Node;
class OpBuilder;

enum class ActivationKind { None, Relu, Clip, LeakyRelu, HardSwish };

/// The attribute spelling of K ("none", "relu", ...).
llvm::StringRef activationName(ActivationKind K);
/// Parses an `activation` value; None if it is not one of the known names.
llvm::Optional<ActivationKind> parseActivationKind(llvm::StringRef Name);

struct FusedActivation {
  ActivationKind Kind = ActivationKind::None;
  double Min = -std::numeric_limits<double>::infinity();
  double Max = std::numeric_limits<double>::infinity();
  double Alpha = 0.01;

  bool isNone() const { return Kind == ActivationKind::None; }
  /// The attributes that set this activation on a node (only the ones that
  /// apply to Kind, so that the printed IR stays short).
  AttrMap toAttrs() const;
};

/// Appends the four attributes, with their defaults, to an op definition.
OpBuilder &addFusedActivationAttrs(OpBuilder &B);

/// Checks N's activation attributes: a known kind, bounds only with clip
/// (min <= max, not NaN), a finite alpha only with leaky_relu, and a float
/// result when an activation is set. Plain message; the verifier adds the node.
llvm::Error verifyFusedActivation(const Node &N);

/// The activation of a node whose op has the attributes (verified graphs only;
/// an unknown name reads as none).
FusedActivation readFusedActivation(const Node &N);

} // namespace kiln
