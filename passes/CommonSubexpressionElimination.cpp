// cse: a node that computes the same thing as an earlier one (same op, same
// operands, equal attributes, same result types) is replaced by it; constants
// with identical contents are merged too, so duplicated weights are stored
// once. The kept node's provenance gains the sources of the merged ones.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"
#include "Support/Hash.h"

#include "llvm/ADT/Hashing.h"

#include <unordered_map>
#include <vector>

namespace kiln {

namespace {

/// Attribute equality with schema defaults filled in, so `{group=1}` equals
/// an omitted group.
bool sameAttrs(const Node &A, const Node &B) {
  for (const AttrSpec &S : A.def().Attrs) {
    const AttrValue *X = A.attrOrDefault(S.Name), *Y = B.attrOrDefault(S.Name);
    if (!X || !Y ? X != Y : !attrEquals(*X, *Y))
      return false;
  }
  return true;
}

bool equivalent(const Node &A, const Node &B) {
  if (&A.def() != &B.def() || A.numOperands() != B.numOperands() ||
      A.numResults() != B.numResults())
    return false;
  for (unsigned I = 0; I < A.numResults(); ++I)
    if (A.result(I)->type() != B.result(I)->type())
      return false;
  if (A.isOp("const"))
    return A.getTensor("value").sameContents(B.getTensor("value"));
  for (unsigned I = 0; I < A.numOperands(); ++I)
    if (A.operand(I) != B.operand(I))
      return false;
  return sameAttrs(A, B);
}

/// A constant's bucket key from a sample of its bytes: the whole buffer when
/// small, otherwise evenly spaced windows. Hashing every weight in full made
/// each CSE run read the whole model (ResNet-50: 100 MB), a measurable part
/// of a conversion (docs/benchmarks.md has the figures); equivalent()
/// compares the full contents anyway.
uint64_t sampledContentHash(llvm::StringRef Bytes) {
  constexpr size_t Whole = 4096, Windows = 16, Window = 64;
  if (Bytes.size() <= Whole)
    return contentHash(Bytes);
  uint64_t H = Bytes.size();
  const size_t Stride = (Bytes.size() - Window) / (Windows - 1);
  for (size_t I = 0; I < Windows; ++I)
    H = llvm::hash_combine(H, contentHash(Bytes.substr(I * Stride, Window)));
  return H;
}

/// A cheap bucket key; equivalent() decides. Pointers only pick buckets, so
/// the output does not depend on them.
uint64_t bucketOf(const Node &N) {
  llvm::hash_code H = llvm::hash_combine(N.opName(), N.numOperands(),
                                         N.numResults());
  if (N.isOp("const")) {
    const Tensor &T = N.getTensor("value");
    return llvm::hash_combine(H, toString(T.type()),
                              sampledContentHash(T.buffer().str()));
  }
  for (const Value *V : N.operands())
    H = llvm::hash_combine(H, V);
  return H;
}

class CommonSubexpressionElimination : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    bool Changed = false;
    std::unordered_map<uint64_t, std::vector<Node *>> Seen;
    // Graph order: the first of equivalent nodes is kept, and a merge makes
    // the users of the merged node match in turn further down.
    for (auto It = G.nodes().begin(); It != G.nodes().end();) {
      Node &N = *It++;
      std::vector<Node *> &Bucket = Seen[bucketOf(N)];
      Node *Kept = nullptr;
      for (Node *C : Bucket)
        if (equivalent(*C, N) && canMerge(G, *C, N)) {
          Kept = C;
          break;
        }
      if (!Kept) {
        Bucket.push_back(&N);
        continue;
      }
      for (unsigned I = 0; I < N.numResults(); ++I)
        replaceValue(G, N.result(I), Kept->result(I));
      Kept->addSources(N);
      G.erase(&N);
      Stats.add(Kept->isOp("const") ? "merged-constants" : "merged");
      Changed = true;
    }
    return Changed;
  }

private:
  static bool canMerge(const Graph &G, const Node &Kept, const Node &Dup) {
    for (unsigned I = 0; I < Dup.numResults(); ++I)
      if (!canReplaceValue(G, Dup.result(I), Kept.result(I)))
        return false;
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

} // namespace kiln
