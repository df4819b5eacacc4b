// Matching and weight-rewriting helpers shared by the fusion passes
// (fuse-conv-bn, fuse-conv-scale, fold-pad-into-conv, fuse-activation,
// fuse-add-activation). They only read the graph, or build values to put in
// it, so a pass can check everything before it changes anything.
#pragma once

#include "IR/Graph.h"
#include "IR/ops/FusedActivation.h"

#include "llvm/ADT/Optional.h"

#include <vector>

namespace kiln {

/// V is used by exactly one node operand and is not a graph output, so its
/// producer may be rewritten to stand for V's user.
bool hasSingleUse(const Graph &G, const Value *V);

/// The values of a constant of a float element type, unquantized, with a
/// static shape; None otherwise (absent, computed, integer, quantized).
llvm::Optional<std::vector<double>> floatConstant(const Value *V);
/// True when floatConstant(V) would give values (without reading them).
bool isFloatConstant(const Value *V);

/// A tensor of float element type Elem (f32, f64, f16, bf16) holding Values.
Tensor makeFloatTensor(ElementType Elem, llvm::ArrayRef<int64_t> Sizes,
                       llvm::ArrayRef<double> Values);

/// Erases the producers of Vs (null or repeated entries are fine) that are
/// `const` nodes nothing uses any more.
void eraseUnusedConstants(Graph &G, std::vector<Value *> Vs);

/// The result of Consumer takes the place of the result of Producer: uses of
/// Consumer's result go to Producer's, which takes its name (graph output
/// names stay), Producer gains Consumer's provenance, Consumer is erased.
void absorbConsumer(Graph &G, Node &Producer, Node &Consumer);

/// Sets A as Producer's fused activation and removes the activation node
/// Act that consumed its result (absorbConsumer), with its unused bounds.
void fuseActivationInto(Graph &G, Node &Producer, Node &Act,
                        const FusedActivation &A);

/// A conv, conv_transpose, linear or gemm with a constant float weight (and
/// bias, if any), seen as y[.., c, ..] = sum(w[c-slice] * x) + bias[c] along
/// one channel axis of its result. A per-channel affine map after it,
/// y' = y * Scale[c] + Shift[c], folds into new weight and bias constants.
class ChannelwiseProducer {
public:
  /// Matches N: one result, activation none, constant float weight and bias
  /// (a gemm's c must broadcast along rows only), static weight shape.
  static llvm::Optional<ChannelwiseProducer> match(const Node &N);

  Node &node() const { return *N; }
  int64_t channels() const { return Channels; }
  /// The channel axis of the result: 1 for conv/conv_transpose/gemm, the
  /// last axis for linear.
  int64_t resultAxis() const;

  /// Replaces the weight by w·Scale[c] and the bias by b·Scale[c] + Shift[c]
  /// (as new constants; a missing bias is added). Cannot fail.
  void applyAffine(Graph &G, llvm::ArrayRef<double> Scale,
                   llvm::ArrayRef<double> Shift);

private:
  /// The output channel of weight element I.
  int64_t channelOf(int64_t I) const;

  Node *N = nullptr;
  int64_t Channels = 0;
  std::vector<int64_t> WeightSizes;
  std::vector<double> Bias; // one value per channel
  // channelOf: channel = (I / Inner) % Channels for plain layouts; for
  // conv_transpose ([C, M/G, k...]) the group of I's input channel matters.
  int64_t Inner = 1, Groups = 1, InPerGroup = 0, OutPerGroup = 0;
};

/// The activation a standalone relu, clip, leaky_relu or hard_swish node
/// computes, when it can be fused: clip bounds from attributes or constant
/// scalar operands, with min <= max. None for anything else.
llvm::Optional<FusedActivation> matchActivation(const Node &N);

} // namespace kiln
