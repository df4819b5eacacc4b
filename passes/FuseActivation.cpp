// fuse-activation: a relu, clip (relu6, hardtanh), leaky_relu or hard_swish
// right after a conv, conv_transpose, linear, gemm or matmul becomes that
// op's fused activation (XNNPACK/TFLite style), so backends run one kernel
// and quantization sees conv+relu as one op:
//   act(conv(x, w, b)) = conv(x, w, b){activation=act}
// Only when the producer's result feeds the activation alone (no other user,
// not a graph output) and the producer has no activation yet.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

namespace kiln {

namespace {

struct Match {
  Node *Producer;
  Node *Act;
  FusedActivation A;
};

class FuseActivation : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Match> Matches;
    for (Node &N : G.nodes()) {
      auto A = matchActivation(N);
      if (!A)
        continue;
      Node *P = N.operand(0)->producer();
      if (!P || !hasSingleUse(G, N.operand(0)) || P->numResults() != 1 ||
          !(P->isOp("conv") || P->isOp("conv_transpose") ||
            P->isOp("linear") || P->isOp("gemm") || P->isOp("matmul")) ||
          !readFusedActivation(*P).isNone() ||
          !isFloatType(P->result()->type().Elem) ||
          P->result()->type() != N.result()->type())
        continue;
      Matches.push_back({P, &N, *A});
    }
    for (Match &M : Matches)
      fuseActivationInto(G, *M.Producer, *M.Act, M.A);
    if (!Matches.empty())
      Stats.add("fused", int64_t(Matches.size()));
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseActivation() {
  return std::make_unique<FuseActivation>();
}

} // namespace kiln
