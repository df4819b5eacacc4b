// eliminate-noops: removes nodes that return their input unchanged: identity,
// reshape/flatten to the same static shape, identity transposes and pairs of
// transposes that cancel, a cast to the same type, a slice that covers
// everything, a pad by zero. Each costs a copy at run time and hides patterns
// (conv -> reshape -> relu) from the fusion passes. Dropout has its own pass.
// A reshape to a static shape of another shape change (reshape, flatten,
// squeeze, unsqueeze) reads that one's input directly: the rank-6 view in
// between (Swin's window partition) may be a rank no target holds.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/ShapeInference.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>

namespace kiln {

namespace {

/// The effective permutation of a transpose (empty perm reverses the axes).
std::vector<int64_t> permOf(const Node &T) {
  std::vector<int64_t> P = T.getInts("perm");
  if (P.empty()) {
    P.resize(size_t(T.operand(0)->type().rank()));
    std::iota(P.rbegin(), P.rend(), 0);
  }
  return P;
}

bool isIdentityPerm(llvm::ArrayRef<int64_t> P) {
  for (size_t I = 0; I < P.size(); ++I)
    if (P[I] != int64_t(I))
      return false;
  return true;
}

bool allEqual(const llvm::Optional<std::vector<int64_t>> &V, int64_t X) {
  return V && llvm::all_of(*V, [&](int64_t E) { return E == X; });
}

/// The same static type: the node only copies its input.
bool sameStaticType(const Node &N) {
  return N.operand(0)->type().isStatic() &&
         N.result()->type() == N.operand(0)->type();
}

/// What N's (only) result can be replaced by, or null.
Value *noopSource(const Node &N) {
  if (N.numResults() != 1 || N.numOperands() == 0 || !N.operand(0))
    return nullptr;
  Value *X = N.operand(0);
  if (N.isOp("identity"))
    return X;
  if (N.isOp("reshape") || N.isOp("flatten"))
    return sameStaticType(N) ? X : nullptr;
  if (N.isOp("cast"))
    return N.result()->type().Elem == X->type().Elem && !X->type().Quant &&
                   !N.result()->type().Quant
               ? X
               : nullptr;
  if (N.isOp("slice")) {
    const Value *Steps = N.numOperands() > 4 ? N.operand(4) : nullptr;
    return sameStaticType(N) && (!Steps || allEqual(constantInts(Steps), 1))
               ? X
               : nullptr;
  }
  if (N.isOp("pad"))
    return allEqual(constantInts(N.operand(1)), 0) &&
                   N.result()->type() == X->type()
               ? X
               : nullptr;
  if (N.isOp("transpose")) {
    std::vector<int64_t> P2 = permOf(N);
    if (isIdentityPerm(P2))
      return X;
    // transpose(transpose(x, p1), p2) reads x[p1[p2[j]]] on axis j.
    const Node *Inner = X->producer();
    if (!Inner || !Inner->isOp("transpose"))
      return nullptr;
    std::vector<int64_t> P1 = permOf(*Inner);
    for (size_t J = 0; J < P2.size(); ++J)
      if (P2[J] < 0 || P2[J] >= int64_t(P1.size()) || P1[P2[J]] != int64_t(J))
        return nullptr;
    return Inner->operand(0);
  }
  return nullptr;
}

/// N is a reshape to a static shape whose input another pure shape change
/// computed: that one's input, which N can read instead (with its shape
/// spelled out: a 0 in the target copies an input dim, which would then be
/// another one); or null. Empty results are left alone.
Value *reshapeChainSource(const Node &N) {
  if (!N.isOp("reshape") || !N.result()->type().isStatic() ||
      llvm::is_contained(staticSizes(N.result()->type().Dims), 0))
    return nullptr;
  const Node *Inner = N.operand(0)->producer();
  if (!Inner || !(Inner->isOp("reshape") || Inner->isOp("flatten") ||
                  Inner->isOp("squeeze") || Inner->isOp("unsqueeze")))
    return nullptr;
  Value *X = Inner->operand(0);
  return X->type().isStatic() && !X->type().Quant ? X : nullptr;
}

class EliminateNoOps : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    for (Node &N : G.nodes())
      if (Value *X = reshapeChainSource(N)) {
        Node *Inner = N.operand(0)->producer();
        std::vector<int64_t> Sizes = staticSizes(N.result()->type().Dims);
        Value *OldShape = N.operand(1);
        Value *Shape = G.createConstant(
            Tensor::fromValues<int64_t>(ElementType::I64,
                                        {Dim(int64_t(Sizes.size()))}, Sizes),
            "", &N);
        Shape->producer()->setSources(N.sources());
        N.setOperand(0, X);
        N.setOperand(1, Shape);
        eraseIfDeadConstant(G, OldShape);
        if (!Inner->result()->hasUses() && !G.isOutput(Inner->result())) {
          std::vector<Value *> Params(Inner->operands().begin() + 1,
                                      Inner->operands().end());
          G.erase(Inner);
          for (Value *P : Params)
            if (P)
              eraseIfDeadConstant(G, P);
        }
        Stats.add("reshape-chains");
        Changed = true;
      }
    // One walk in graph order, rewriting as it goes, so a chain of no-ops
    // (or of cancelling transposes) collapses in one run.
    for (auto It = G.nodes().begin(); It != G.nodes().end();) {
      Node &N = *It++;
      Value *Src = noopSource(N);
      if (!Src || !isCompatible(N.result()->type(), Src->type()) ||
          !canReplaceValue(G, N.result(), Src))
        continue;
      Node *Inner = N.operand(0)->producer();
      replaceValue(G, N.result(), Src);
      Stats.add(N.isOp("transpose") && Src != N.operand(0) ? "transpose-pairs"
                                                             : "removed");
      // Shape/slice/pad parameters used by nothing else go with the node.
      std::vector<Value *> Params(N.operands().begin() + 1, N.operands().end());
      G.erase(&N);
      llvm::sort(Params);
      Params.erase(std::unique(Params.begin(), Params.end()), Params.end());
      for (Value *P : Params)
        eraseIfDeadConstant(G, P);
      // The first transpose of a cancelled pair often has no other user.
      if (Inner && Inner->isOp("transpose") && !Inner->result()->hasUses() &&
          !G.isOutput(Inner->result()))
        G.erase(Inner);
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createEliminateNoOps() {
  return std::make_unique<EliminateNoOps>();
}

} // namespace kiln
