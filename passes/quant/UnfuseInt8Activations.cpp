// unfuse-int8-activations: before int8 calibration, a fused activation that
// an int8 operator cannot apply as its output bounds (leaky_relu,
// hard_swish) becomes a node of its own again:
//   conv(x, w){activation=hard_swish}  ->  hard_swish(conv(x, w))
// Calibration then observes the producer's own result (the range its int8
// output needs) and the activation's (the range of the int8 table that
// computes it). relu and clip stay fused: they are the int8 output's clamp.
// Run by quantizeGraph and by `kiln calibrate`, so statistics and the graph
// they calibrate agree (Pipelines.cpp says why fusion comes first).
#include "passes/Pass.h"
#include "passes/quant/QDQBuilder.h"

#include "IR/OpRegistry.h"
#include "IR/ops/FusedActivation.h"

#include <vector>

namespace kiln {

namespace {

bool hasTableActivation(const Node &N) {
  if (!N.hasAttr("activation") || N.numResults() != 1)
    return false;
  ActivationKind K = readFusedActivation(N).Kind;
  return K == ActivationKind::LeakyRelu || K == ActivationKind::HardSwish;
}

class UnfuseInt8Activations : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (hasTableActivation(N))
        Matches.push_back(&N);
    for (Node *P : Matches) {
      FusedActivation A = readFusedActivation(*P);
      Value *Y = P->result();
      std::vector<Use> Uses(Y->uses().begin(), Y->uses().end());
      AttrMap Attrs;
      if (A.Kind == ActivationKind::LeakyRelu)
        Attrs["alpha"] = A.Alpha;
      llvm::StringRef Op =
          A.Kind == ActivationKind::LeakyRelu ? "leaky_relu" : "hard_swish";
      Node *Act = G.createNode(OpRegistry::instance().get(Op), {Y},
                               {Y->type()}, std::move(Attrs), nodeAfter(P));
      Act->setSources(P->sources());
      for (const char *Name : {"activation", "activation_alpha"})
        P->removeAttr(Name);
      for (const Use &U : Uses)
        U.User->setOperand(U.Index, Act->result());
      for (unsigned I = 0; I < G.outputs().size(); ++I)
        if (G.outputs()[I] == Y)
          G.setOutput(I, Act->result());
      // The graph's value names stay with what the user sees: the
      // activation's result keeps the fused result's name.
      if (!Y->name().empty()) {
        Act->result()->setName(Y->name());
        Y->setName(Y->name() + ".pre");
      }
      Stats.add(Op == "hard_swish" ? "hard_swish" : "leaky_relu");
    }
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createUnfuseInt8Activations() {
  return std::make_unique<UnfuseInt8Activations>();
}

} // namespace kiln
