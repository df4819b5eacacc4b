// remove-dropout: in inference dropout is the identity, so it is replaced by
// its input. Applies when the training operand is absent or a constant false,
// and in training mode with a ratio of exactly 0 (torchvision's Swin calls
// F.dropout without training=, so its export says training = true, p = 0);
// a used mask result becomes a constant all-true tensor, which needs a static
// shape (otherwise the node stays). Training-mode dropout is left alone.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include <vector>

namespace kiln {

namespace {

bool isConstantScalar(const Value *V, double Want) {
  const Tensor *T = V->constant();
  return T && T->numElements() == 1 && T->asDouble(0) == Want;
}

/// The dropout passes its input through: inference, or nothing to drop.
bool isInference(const Node &N) {
  const Value *Training = N.numOperands() > 2 ? N.operand(2) : nullptr;
  if (!Training || isConstantScalar(Training, 0))
    return true;
  const Value *Ratio = N.numOperands() > 1 ? N.operand(1) : nullptr;
  return Ratio ? isConstantScalar(Ratio, 0) : N.getFloat("ratio") == 0;
}

bool maskIsUsed(const Graph &G, const Node &N) {
  return N.numResults() > 1 &&
         (N.result(1)->hasUses() || G.isOutput(N.result(1)));
}

class RemoveDropout : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (N.isOp("dropout") && isInference(N) &&
          (!maskIsUsed(G, N) || N.result(1)->type().isStatic()))
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      // Checked here, not when matching: removing an earlier dropout of a
      // chain may have made this one's input a graph input.
      if (!canReplaceValue(G, N->result(0), N->operand(0)))
        continue;
      if (maskIsUsed(G, *N)) {
        const TensorType &MT = N->result(1)->type();
        std::vector<uint8_t> Ones(size_t(*numElements(MT.Dims)), 1);
        Value *Mask = G.createConstant(
            Tensor(TensorType(ElementType::Bool, MT.Dims),
                   Buffer::own(std::move(Ones))),
            N->result(1)->name(), N);
        Mask->producer()->setSources(N->sources());
        G.replaceAllUsesWith(N->result(1), Mask);
        Stats.add("masks-made-constant");
      }
      std::vector<Value *> Operands(N->operands().begin(),
                                    N->operands().end());
      replaceValue(G, N->result(0), N->operand(0));
      G.erase(N);
      for (unsigned I = 1; I < Operands.size(); ++I)
        if (I == 1 || Operands[I] != Operands[1])
          eraseIfDeadConstant(G, Operands[I]);
      Stats.add("removed");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createRemoveDropout() {
  return std::make_unique<RemoveDropout>();
}

} // namespace kiln
