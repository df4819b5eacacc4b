// strip-qdq: the float model under a model's own quantization, for
// recalibrating it (--quantize on a model that arrived quantized): every
// dequantize of an integer constant becomes the float constant it computes,
// and dequantize(quantize(x)) (dynamic_quantize too) becomes x, dropping the
// rounding. A quantize whose integer result is used otherwise (a graph
// output) stays, and quantizing then reports it.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "Interpreter/NodeEvaluator.h"

#include "llvm/ADT/STLExtras.h"

#include <vector>

namespace kiln {

namespace {

class StripQDQ : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Dequantizes;
    for (Node &N : G.nodes())
      if (N.isOp("dequantize"))
        Dequantizes.push_back(&N);
    bool Changed = false;
    for (Node *D : Dequantizes) {
      Value *Y = D->result();
      if (D->operand(0)->constant()) {
        auto R = tryEvaluateConstantNode(*D);
        if (!R) {
          llvm::consumeError(R.takeError());
          continue;
        }
        if (!*R)
          continue;
        Value *C = G.createConstant(std::move((**R)[0]), Y->name(), D);
        C->producer()->setSources(D->sources());
        if (!canReplaceValue(G, Y, C))
          continue;
        replaceValue(G, Y, C);
        Stats.add("weights-to-float");
      } else {
        Node *Q = D->operand(0)->producer();
        if (!Q || !(Q->isOp("quantize") || Q->isOp("dynamic_quantize")) ||
            D->operand(0)->resultIndex() != 0 ||
            !canReplaceValue(G, Y, Q->operand(0)))
          continue;
        replaceValue(G, Y, Q->operand(0));
        Stats.add("pairs-removed");
      }
      std::vector<Value *> Ops(D->operands().begin(), D->operands().end());
      G.erase(D);
      for (Value *O : Ops)
        if (O)
          eraseIfDeadConstant(G, O);
      Changed = true;
    }
    // The quantizes (and their parameters) nothing reads any more.
    std::vector<Node *> Quantizes;
    for (Node &N : G.nodes())
      if (N.isOp("quantize") || N.isOp("dynamic_quantize"))
        Quantizes.push_back(&N);
    for (Node *N : Quantizes) {
      if (llvm::any_of(N->results(), [&](Value *R) {
            return R->hasUses() || G.isOutput(R);
          }))
        continue;
      std::vector<Value *> Ops(N->operands().begin(), N->operands().end());
      G.erase(N);
      for (size_t I = 1; I < Ops.size(); ++I)
        if (Ops[I] && (I == 1 || Ops[I] != Ops[1]))
          eraseIfDeadConstant(G, Ops[I]);
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createStripQDQ() { return std::make_unique<StripQDQ>(); }

} // namespace kiln
