// fuse-hard-swish: x * hard_sigmoid(x) with alpha = 1/6, beta = 1/2 is
// hard_swish(x) = x * relu6(x + 3) / 6, since clip(x/6 + 1/2, 0, 1) =
// relu6(x + 3) / 6. torch.onnx.export writes a quantized hardswish that way
// (MobileNetV3 from PyTorch), and as one op it runs as one int8 table
// between dequantize and quantize instead of a float island.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"

#include <cmath>
#include <vector>

namespace kiln {

namespace {

/// The x of N = mul(x, hard_sigmoid(x)) (either order), the hard_sigmoid
/// used by N alone; null otherwise.
Value *hardSwishInput(const Node &N) {
  if (!N.isOp("mul") || N.numOperands() != 2)
    return nullptr;
  for (unsigned I = 0; I < 2; ++I) {
    const Node *H = N.operand(I)->producer();
    Value *X = N.operand(1 - I);
    if (H && H->isOp("hard_sigmoid") && H->operand(0) == X &&
        N.operand(I)->numUses() == 1 && !N.graph()->isOutput(N.operand(I)) &&
        std::abs(H->getFloat("alpha") - 1.0 / 6.0) < 1e-6 &&
        H->getFloat("beta") == 0.5 && X->type() == N.result()->type())
      return X;
  }
  return nullptr;
}

class FuseHardSwish : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (hardSwishInput(N))
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      Value *X = hardSwishInput(*N);
      Node *H = N->operand(N->operand(0) == X ? 1 : 0)->producer();
      Node *HS = G.createNode(OpRegistry::instance().get("hard_swish"), {X},
                              {N->result()->type()}, {}, N);
      HS->setSources(H->sources());
      HS->addSources(*N);
      if (!canReplaceValue(G, N->result(), HS->result())) {
        G.erase(HS);
        continue;
      }
      replaceValue(G, N->result(), HS->result());
      G.erase(N);
      G.erase(H);
      Stats.add("fused");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFuseHardSwish() {
  return std::make_unique<FuseHardSwish>();
}

} // namespace kiln
