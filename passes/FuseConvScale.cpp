// fuse-conv-scale: folds a per-channel mul/add/sub/div by a constant that
// follows a conv (also conv_transpose, linear, gemm) into its weight and
// bias, as left behind by exporters that unfold BatchNorm or normalization:
//   (w·x + b)·k = (w·k)·x + b·k        (w·x + b) + k = w·x + (b + k)
// sub by k is add of −k, div by k is mul by 1/k (k ≠ 0). k is a scalar or
// per channel along the result's channel axis ([C,1,1], [1,C,1,1]...).
// Chains (conv → mul → add) fold one step per round until none is left.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

#include <cmath>

namespace kiln {

namespace {

struct Match {
  ChannelwiseProducer Producer;
  Node *Op;
  std::vector<double> Scale, Shift;
};

/// K's values per channel, when constant K broadcasts against a result of
/// rank Rank only along channel axis Axis (or is one value). The result
/// shape must not grow.
llvm::Optional<std::vector<double>> perChannel(const Value *K, int64_t Rank,
                                               int64_t Axis, int64_t C) {
  auto V = floatConstant(K);
  if (!V || V->empty() || K->type().rank() > Rank)
    return llvm::None;
  const Shape &S = K->type().Dims;
  int64_t Offset = Rank - int64_t(S.size()); // K is right-aligned
  for (int64_t D = 0; D < int64_t(S.size()); ++D)
    if (S[size_t(D)].size() != 1 &&
        !(D + Offset == Axis && S[size_t(D)].size() == C))
      return llvm::None;
  if (V->size() == 1)
    return std::vector<double>(size_t(C), (*V)[0]);
  return V;
}

llvm::Optional<Match> matchScale(const Graph &G, Node &Op) {
  bool Mul = Op.isOp("mul"), Add = Op.isOp("add");
  bool Sub = Op.isOp("sub"), Div = Op.isOp("div");
  if (!(Mul || Add || Sub || Div))
    return llvm::None;
  if (Add && !readFusedActivation(Op).isNone())
    return llvm::None;
  // The conv's result is one operand (either side for mul/add, the left for
  // sub/div), the constant the other.
  for (unsigned Side = 0; Side < 2; ++Side) {
    if (Side == 1 && (Sub || Div))
      break;
    Value *X = Op.operand(Side), *K = Op.operand(1 - Side);
    // K must be a constant: checked first, since matching the producer
    // reads its whole weight (a residual add would read every conv's).
    if (!K->constant() || !X->producer() || !hasSingleUse(G, X))
      continue;
    auto P = ChannelwiseProducer::match(*X->producer());
    if (!P || Op.result()->type() != X->type())
      continue;
    auto KV = perChannel(K, X->type().rank(), P->resultAxis(), P->channels());
    if (!KV)
      continue;
    size_t C = size_t(P->channels());
    Match M{std::move(*P), &Op, std::vector<double>(C, 1.0),
            std::vector<double>(C, 0.0)};
    for (size_t I = 0; I < C; ++I) {
      double Kc = (*KV)[I];
      if (Mul)
        M.Scale[I] = Kc;
      else if (Div && Kc != 0 && std::isfinite(1 / Kc))
        M.Scale[I] = 1 / Kc;
      else if (Div)
        return llvm::None;
      else
        M.Shift[I] = Add ? Kc : -Kc;
    }
    return M;
  }
  return llvm::None;
}

class FuseConvScale : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    // Each round folds every op that follows a matched producer directly;
    // a chain of k ops needs k rounds. Every fold removes a node, so this
    // ends.
    while (true) {
      std::vector<Match> Matches;
      for (Node &N : G.nodes())
        if (auto M = matchScale(G, N))
          Matches.push_back(std::move(*M));
      if (Matches.empty())
        return Changed;
      for (Match &M : Matches) {
        std::vector<Value *> Consts(M.Op->operands().begin(),
                                    M.Op->operands().end());
        M.Producer.applyAffine(G, M.Scale, M.Shift);
        absorbConsumer(G, M.Producer.node(), *M.Op);
        eraseUnusedConstants(G, std::move(Consts));
        Stats.add("fused");
      }
      Changed = true;
    }
  }
};

} // namespace

std::unique_ptr<Pass> createFuseConvScale() {
  return std::make_unique<FuseConvScale>();
}

} // namespace kiln
