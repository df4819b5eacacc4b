// fold-pad-into-conv: an explicit zero `pad` in front of a conv becomes part
// of the conv's own padding, saving a copy of the activation (TF-style
// "SAME" padding exported as Pad + Conv). For spatial axis d of an N-d conv:
//   conv.pads[d] += pad.begin[2+d]     conv.pads[NS+d] += pad.end[2+d]
// Only constant mode, a constant zero value (or none), constant non-negative
// pads that leave the batch and channel axes alone, and a single-use pad
// feeding the conv's input. conv_transpose is left alone (its pads crop).
#include "passes/FusionSupport.h"
#include "passes/Pass.h"

#include "IR/ShapeInference.h"

namespace kiln {

namespace {

struct Match {
  Node *Pad;
  Node *Conv;
  std::vector<int64_t> NewPads; // the conv's pads, begins then ends
};

llvm::Optional<Match> matchPad(const Graph &G, Node &Conv) {
  if (!Conv.isOp("conv"))
    return llvm::None;
  Value *X = Conv.operand(0);
  Node *Pad = X->producer();
  if (!Pad || !Pad->isOp("pad") || !hasSingleUse(G, X) ||
      Pad->getString("mode") != "constant")
    return llvm::None;
  if (Pad->numOperands() > 2 && Pad->operand(2)) {
    auto V = constantFloats(Pad->operand(2));
    if (!V || V->size() != 1 || (*V)[0] != 0.0)
      return llvm::None;
  }
  auto Amounts = constantInts(Pad->operand(1));
  int64_t Rank = X->type().rank();
  if (!Amounts || int64_t(Amounts->size()) != 2 * Rank || Rank < 3)
    return llvm::None;
  size_t NS = size_t(Rank - 2);
  auto ConvPads = padsAttr(Conv, NS);
  if (!ConvPads) {
    llvm::consumeError(ConvPads.takeError());
    return llvm::None;
  }
  const std::vector<int64_t> &P = *Amounts;
  for (int64_t A : P)
    if (A < 0)
      return llvm::None; // negative pads crop
  if (P[0] || P[1] || P[size_t(Rank)] || P[size_t(Rank) + 1])
    return llvm::None; // batch or channel padding
  Match M{Pad, &Conv, *ConvPads};
  for (size_t D = 0; D < NS; ++D) {
    M.NewPads[D] += P[2 + D];
    M.NewPads[NS + D] += P[size_t(Rank) + 2 + D];
  }
  return M;
}

class FoldPadIntoConv : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Match> Matches;
    for (Node &N : G.nodes())
      if (auto M = matchPad(G, N))
        Matches.push_back(std::move(*M));
    for (Match &M : Matches) {
      std::vector<Value *> Consts(M.Pad->operands().begin() + 1,
                                  M.Pad->operands().end());
      M.Conv->setOperand(0, M.Pad->operand(0));
      M.Conv->setAttr("pads", M.NewPads);
      M.Conv->addSources(*M.Pad);
      G.erase(M.Pad);
      eraseUnusedConstants(G, std::move(Consts));
      Stats.add("folded");
    }
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createFoldPadIntoConv() {
  return std::make_unique<FoldPadIntoConv>();
}

} // namespace kiln
