// fuse-add-activation: add followed by relu or clip (also leaky_relu,
// hard_swish) becomes one add with a fused activation, the residual
// "add + relu" of ResNet-style blocks:
//   relu(a + b) = add(a, b){activation=relu}
// Same conditions as fuse-activation: the sum feeds the activation alone
// (no other user, not a graph output), the add has no activation yet, and
// the result type does not change (no broadcasting after the add).
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

namespace kiln {

namespace {

class FuseAddActivation : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<std::pair<Node *, Node *>> Matches; // (add, activation)
    std::vector<FusedActivation> Acts;
    for (Node &N : G.nodes()) {
      auto A = matchActivation(N);
      if (!A)
        continue;
      Node *Add = N.operand(0)->producer();
      if (!Add || !Add->isOp("add") || !hasSingleUse(G, N.operand(0)) ||
          !readFusedActivation(*Add).isNone() ||
          !isFloatType(Add->result()->type().Elem) ||
          Add->result()->type() != N.result()->type())
        continue;
      Matches.push_back({Add, &N});
      Acts.push_back(*A);
    }
    for (size_t I = 0; I < Matches.size(); ++I)
      fuseActivationInto(G, *Matches[I].first, *Matches[I].second, Acts[I]);
    if (!Matches.empty())
      Stats.add("fused", int64_t(Matches.size()));
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseAddActivation() {
  return std::make_unique<FuseAddActivation>();
}

} // namespace kiln
