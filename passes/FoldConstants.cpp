// fold-constants: evaluates nodes whose operands are all constants (and
// shape/size of statically shaped values) with the interpreter's own kernels
// and replaces them by constants, so later passes and backends see plain
// weights. Capped by size so a model never grows: a result over 1 MiB, or
// larger than its constant inputs by more than a small margin, stays unfolded.
// materialize-constants (MaterializeConstants.cpp) is the same fold without
// the cap, for the runtime targets, which cannot compute weights.
#include "passes/FoldConstants.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "Interpreter/NodeEvaluator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace kiln {

namespace {

class FoldConstants : public Pass {
public:
  explicit FoldConstants(FoldSizeCap Cap) : Cap(Cap) {}

  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    // One forward walk: a folded node's users see a constant when reached, so
    // a whole chain folds in one run, always in graph order.
    for (auto It = G.nodes().begin(); It != G.nodes().end();) {
      Node &N = *It++;
      if (!isCandidate(G, N))
        continue;
      if (!declaredFits(N)) { // too large to keep: do not even evaluate it
        Stats.add("skipped-too-large");
        continue;
      }
      auto Results = tryEvaluateConstantNode(N);
      if (!Results) {
        // A kernel error on constant inputs also fails at run time; leave the
        // node for the interpreter to report with its inputs.
        llvm::consumeError(Results.takeError());
        continue;
      }
      if (!*Results || !sameTypes(N, **Results))
        continue;
      if (!fits(N, **Results)) {
        Stats.add("skipped-too-large");
        continue;
      }
      replaceByConstants(G, N, std::move(**Results));
      Stats.add("folded");
      Changed = true;
    }
    return Changed;
  }

private:
  FoldSizeCap Cap;

  static bool isCandidate(const Graph &G, const Node &N) {
    // Dropout is remove-dropout's business (training mode must not fold).
    if (N.isOp("const") || N.isOp("dropout"))
      return false;
    // An integer weight read through dequantize is the int8 weight a backend
    // keeps narrow; folding it to float would lose it.
    if (N.isOp("dequantize") && isIntegerType(N.operand(0)->type().Elem))
      return false;
    bool ShapeQuery = N.isOp("shape") || N.isOp("size");
    for (const Value *V : N.operands())
      if (V && !V->constant() && !(ShapeQuery && V->type().isStatic()))
        return false;
    // A dead node is dce's business.
    for (const Value *R : N.results())
      if (R->hasUses() || G.isOutput(R))
        return true;
    return false;
  }

  /// The constants can stand for the results without changing any type.
  static bool sameTypes(const Node &N, const std::vector<Tensor> &Results) {
    for (unsigned I = 0; I < Results.size(); ++I) {
      const TensorType &Declared = N.result(I)->type();
      const TensorType &Got = Results[I].type();
      if (Got.Elem != Declared.Elem || Got.Quant != Declared.Quant ||
          !isCompatible(Declared, Got))
        return false;
    }
    return true;
  }

  static bool isKept(const Value *R) {
    return R->hasUses() || R->producer()->graph()->isOutput(R);
  }

  bool fitsBytes(const Node &N, size_t Out) const {
    size_t In = 0;
    for (const Value *V : N.operands())
      if (V && V->constant())
        In += V->constant()->buffer().size();
    return Out <= Cap.MaxResultBytes && Out <= In + Cap.GrowthMargin;
  }

  /// The size check on the declared result types where they are static.
  bool declaredFits(const Node &N) const {
    size_t Out = 0;
    for (const Value *R : N.results())
      if (auto Count = numElements(R->type().Dims); Count && isKept(R))
        Out += size_t(*Count) * elementSize(R->type().Elem);
    return fitsBytes(N, Out);
  }

  bool fits(const Node &N, const std::vector<Tensor> &Results) const {
    size_t Out = 0;
    for (unsigned I = 0; I < Results.size(); ++I)
      if (isKept(N.result(I)))
        Out += Results[I].buffer().size();
    return fitsBytes(N, Out);
  }

  static void replaceByConstants(Graph &G, Node &N, std::vector<Tensor> R) {
    for (unsigned I = 0; I < N.numResults(); ++I) {
      Value *Old = N.result(I);
      if (!Old->hasUses() && !G.isOutput(Old))
        continue;
      Value *C = G.createConstant(std::move(R[I]), Old->name(), &N);
      C->producer()->setSources(N.sources());
      G.replaceAllUsesWith(Old, C);
    }
    std::vector<Value *> Operands(N.operands().begin(), N.operands().end());
    llvm::sort(Operands);
    Operands.erase(std::unique(Operands.begin(), Operands.end()),
                   Operands.end());
    G.erase(&N);
    for (Value *V : Operands)
      eraseIfDeadConstant(G, V);
  }
};

} // namespace

std::unique_ptr<Pass> createFoldConstantsWith(FoldSizeCap Cap) {
  return std::make_unique<FoldConstants>(Cap);
}

std::unique_ptr<Pass> createFoldConstants() {
  // Shape arithmetic (a few i64 values from a shape query) may outgrow its
  // inputs by the margin.
  return createFoldConstantsWith({size_t(1) << 20, 1024});
}

} // namespace kiln
