// fuse-conv-bn: folds an inference-mode batch_norm into the conv,
// conv_transpose, linear or gemm before it, so the normalization costs
// nothing at run time. With s = γ/√(σ²+ε), per output channel c:
//   w'[c-slice] = w[c-slice]·s[c]      b'[c] = (b[c]−μ[c])·s[c] + β[c]
// conv_transpose scales along its output channels (axis 1 of [C, M/G, k...],
// per group); linear/gemm only fold a BatchNorm1d over a 2-D [N, C] result.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

#include <cmath>

namespace kiln {

namespace {

struct Match {
  ChannelwiseProducer Producer;
  Node *BN;
  std::vector<double> Scale, Shift; // y = z·Scale + Shift
};

/// The BN's per-channel affine map, when BN folds into the node before it.
llvm::Optional<Match> matchBN(const Graph &G, Node &BN) {
  if (!BN.isOp("batch_norm") || BN.getInt("training") != 0 ||
      BN.numResults() != 1)
    return llvm::None;
  Value *X = BN.operand(0);
  if (!X->producer() || !hasSingleUse(G, X))
    return llvm::None;
  auto P = ChannelwiseProducer::match(*X->producer());
  if (!P || P->resultAxis() != 1 || X->type().rank() < 2)
    return llvm::None;
  // linear over [N, L, C] with BatchNorm1d over axis 1 would mix axes.
  if (P->node().isOp("linear") && X->type().rank() != 2)
    return llvm::None;
  size_t C = size_t(P->channels());
  std::vector<std::vector<double>> Params; // gamma, beta, mean, var
  for (unsigned I = 1; I < 5; ++I) {
    auto V = floatConstant(BN.operand(I));
    if (!V || V->size() != C)
      return llvm::None;
    Params.push_back(std::move(*V));
  }
  double Eps = BN.getFloat("epsilon");
  Match M{std::move(*P), &BN, std::vector<double>(C), std::vector<double>(C)};
  for (size_t I = 0; I < C; ++I) {
    double Denom = std::sqrt(Params[3][I] + Eps);
    if (!(Denom > 0) || !std::isfinite(Denom))
      return llvm::None; // a negative or infinite variance: leave it alone
    M.Scale[I] = Params[0][I] / Denom;
    M.Shift[I] = Params[1][I] - Params[2][I] * M.Scale[I];
  }
  return M;
}

class FuseConvBN : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Match> Matches;
    for (Node &N : G.nodes())
      if (auto M = matchBN(G, N))
        Matches.push_back(std::move(*M));
    // Each match owns its producer and BN, so the rewrites are independent;
    // they run in graph order.
    for (Match &M : Matches) {
      // (z − μ)·s + β = z·s + (β − μ·s), and z = w·x + b.
      M.Producer.applyAffine(G, M.Scale, M.Shift);
      std::vector<Value *> Params(M.BN->operands().begin() + 1,
                                  M.BN->operands().end());
      absorbConsumer(G, M.Producer.node(), *M.BN);
      eraseUnusedConstants(G, std::move(Params));
      Stats.add("fused");
    }
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseConvBN() {
  return std::make_unique<FuseConvBN>();
}

} // namespace kiln
