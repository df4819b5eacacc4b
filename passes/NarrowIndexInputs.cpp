// narrow-index-inputs: int64 graph inputs (token ids, attention masks) to
// int32 for targets without 64-bit tensors (NNAPI). The input keeps its
// int64 type, so callers still pass what the source model takes; a cast to
// i32 right after it (the NNAPI target runs it on the host, saturating)
// feeds every reader. Narrowed only where each reader takes int32 as it
// takes int64: a gather by it, a cast of it, and a comparison of it with a
// constant strictly inside int32's range (that constant becomes i32). An id
// past int32 saturates: a gather fails on it, a comparison with such a
// constant answers as for the id, a cast gives +-2^31. An input
// read otherwise is left, and the target refuses it by name.
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include <cstdint>
#include <limits>

namespace kiln {

namespace {

bool isComparison(const Node &N) {
  return N.isOp("equal") || N.isOp("greater") || N.isOp("less");
}

/// Strictly inside int32's range: the narrowing cast saturates, so an id
/// past it becomes INT32_MIN or INT32_MAX, and a comparison with a bound
/// itself would change its answer.
bool insideInt32(const Tensor &T) {
  for (int64_t I = 0; I < T.numElements(); ++I) {
    int64_t V = T.asInt(I);
    if (V <= std::numeric_limits<int32_t>::min() ||
        V >= std::numeric_limits<int32_t>::max())
      return false;
  }
  return true;
}

/// Whether use U of an int64 input reads it as it would read int32.
bool narrowable(const Use &U) {
  const Node &N = *U.User;
  if (N.isOp("gather"))
    return U.Index == 1;
  if (N.isOp("cast"))
    return true;
  if (!isComparison(N))
    return false;
  const Tensor *Other = N.operand(1 - U.Index)->constant();
  return Other && Other->type().Elem == ElementType::I64 && insideInt32(*Other);
}

Tensor asInt32(const Tensor &T) {
  std::vector<int32_t> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = int32_t(T.asInt(int64_t(I)));
  return Tensor::fromValues<int32_t>(ElementType::I32, T.type().Dims, V);
}

class NarrowIndexInputs : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    for (Value *In : G.inputs()) {
      if (In->type().Elem != ElementType::I64 || In->type().Quant ||
          !In->hasUses() || G.isOutput(In))
        continue;
      std::vector<Use> Uses(In->uses().begin(), In->uses().end());
      bool All = true;
      for (const Use &U : Uses)
        All &= narrowable(U);
      if (!All)
        continue;
      // Before the first reader in graph order.
      Node *First = nullptr;
      for (Node &N : G.nodes())
        for (const Use &U : Uses)
          if (U.User == &N && !First)
            First = &N;
      NodeBuilder B(G, *First);
      Value *Narrow = B.op("cast", {In}, {{"to", std::string("i32")}});
      if (llvm::Error Err = B.takeError())
        return Err;
      Narrow->setName(In->name() + ".i32");
      for (const Use &U : Uses) {
        U.User->setOperand(U.Index, Narrow);
        if (isComparison(*U.User)) {
          unsigned Other = 1 - U.Index;
          Value *Wide = U.User->operand(Other);
          NodeBuilder C(G, *U.User);
          U.User->setOperand(Other, C.constant(asInt32(*Wide->constant())));
          eraseIfDeadConstant(G, Wide);
        }
      }
      Stats.add("narrowed-inputs");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createNarrowIndexInputs() {
  return std::make_unique<NarrowIndexInputs>();
}

} // namespace kiln
