// lower-transpose-rank: a transpose of rank above 4 (Swin's window
// partition, x.view(B, H/w, w, W/w, w, C).permute(0, 1, 3, 2, 4, 5)) for
// targets that transpose rank 4 at most (NNAPI). Size-1 axes are dropped and
// axes that stay neighbours, in order, under the permutation are merged:
//   [1, 2, 7, 2, 7, 48] perm (0, 1, 3, 2, 4, 5)
//   -> reshape [2, 7, 2, 336], transpose (0, 2, 1, 3), reshape back.
// One that is still of rank 5 (attention's qkv split, [n, L, 3, heads, d]
// permuted (2, 0, 3, 1, 4)) is written per index of its first output axis,
// when that axis has at most MaxSplit entries: each slice's rank-4 transpose,
// concatenated. The same bytes move the same way; a transpose that stays
// above rank 4 is left (and refused by the target, by name).
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/ShapeInference.h"

#include <algorithm>

namespace kiln {

namespace {

constexpr int64_t MaxRank = 4;
constexpr int64_t MaxSplit = 16;

struct Reduced {
  std::vector<int64_t> InDims; // the input seen with merged axes
  std::vector<int64_t> Perm;   // over those
};

/// Groups the input axes the permutation keeps together: output axes in
/// order, a run of consecutive input axes forms one group. Size-1 axes
/// join any group (they move nothing).
Reduced reduce(const std::vector<int64_t> &Dims, const std::vector<int64_t> &Perm) {
  std::vector<int64_t> Kept; // output order, input axes of size > 1
  for (int64_t P : Perm)
    if (Dims[size_t(P)] != 1)
      Kept.push_back(P);
  // Groups in output order: each a run of consecutive input axes.
  std::vector<std::vector<int64_t>> Groups;
  for (int64_t A : Kept) {
    // A extends the last run when it follows it in the input, with only
    // size-1 axes between.
    bool Extends = !Groups.empty() && Groups.back().back() < A;
    for (int64_t I = Extends ? Groups.back().back() + 1 : A; I < A; ++I)
      Extends = Extends && Dims[size_t(I)] == 1;
    if (Extends)
      Groups.back().push_back(A);
    else
      Groups.push_back({A});
  }
  // Input order of the groups gives the reduced input dims; the output
  // order their permutation.
  std::vector<size_t> ByInput(Groups.size());
  for (size_t I = 0; I < Groups.size(); ++I)
    ByInput[I] = I;
  std::sort(ByInput.begin(), ByInput.end(), [&](size_t A, size_t B) {
    return Groups[A].front() < Groups[B].front();
  });
  Reduced R;
  R.Perm.resize(Groups.size());
  for (size_t Pos = 0; Pos < ByInput.size(); ++Pos) {
    int64_t Size = 1;
    for (int64_t A : Groups[ByInput[Pos]])
      Size *= Dims[size_t(A)];
    R.InDims.push_back(Size);
    R.Perm[ByInput[Pos]] = int64_t(Pos);
  }
  return R;
}

/// The users of T's result that pick one index of its axis 0: a slice
/// [i, i + 1) along axis 0 with step 1, whose only user squeezes axis 0.
/// Gives each squeeze's result with its index.
std::vector<std::pair<Value *, int64_t>> pickedIndices(const Graph &G,
                                                       const Node &T) {
  std::vector<std::pair<Value *, int64_t>> Out;
  for (const Use &U : T.result()->uses()) {
    const Node &S = *U.User;
    if (!S.isOp("slice") || U.Index != 0 || S.numOperands() < 4 ||
        S.result()->numUses() != 1 || G.isOutput(S.result()))
      continue;
    auto Start = constantInts(S.operand(1)), End = constantInts(S.operand(2)),
         Axes = constantInts(S.operand(3));
    auto Steps = S.numOperands() > 4 && S.operand(4)
                     ? constantInts(S.operand(4))
                     : llvm::Optional<std::vector<int64_t>>(std::vector<int64_t>{1});
    if (!Start || !End || !Axes || !Steps || Start->size() != 1 ||
        End->size() != 1 || *Axes != std::vector<int64_t>{0} ||
        *Steps != std::vector<int64_t>{1} || (*End)[0] != (*Start)[0] + 1 ||
        (*Start)[0] < 0)
      continue;
    Node &Q = *S.result()->uses().front().User;
    if (!Q.isOp("squeeze") || Q.numOperands() < 2 ||
        constantInts(Q.operand(1)) != llvm::Optional<std::vector<int64_t>>(
                                          std::vector<int64_t>{0}))
      continue;
    Out.push_back({Q.result(), (*Start)[0]});
  }
  return Out;
}

class LowerTransposeRank : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (N.isOp("transpose") && N.operand(0)->type().isStatic() &&
          N.operand(0)->type().rank() > MaxRank && !N.operand(0)->type().Quant)
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      std::vector<int64_t> Dims = staticSizes(N->operand(0)->type().Dims);
      std::vector<int64_t> Perm = N->getInts("perm");
      if (Perm.empty()) // the default: reversed axes
        for (int64_t I = int64_t(Dims.size()) - 1; I >= 0; --I)
          Perm.push_back(I);
      for (int64_t &P : Perm)
        if (P < 0)
          P += int64_t(Dims.size());
      Reduced R = reduce(Dims, Perm);
      size_t Rank = R.InDims.size();
      bool Split = int64_t(Rank) == MaxRank + 1 &&
                   R.InDims[size_t(R.Perm[0])] <= MaxSplit;
      if (int64_t(Rank) > MaxRank && !Split) {
        Stats.add("kept-above-rank-4");
        continue;
      }
      NodeBuilder B(G, *N);
      Value *In = nullptr, *T = nullptr;
      std::vector<Value *> Parts;
      if (Split) {
        // Per index of output axis 0 (input axis P0): x seen as
        // [before P0, P0, after P0] (rank 3, so no tensor above rank 4 is
        // made), the slice at that index shaped as the other four axes,
        // transposed by the rest of the permutation.
        int64_t P0 = R.Perm[0], Before = 1, After = 1;
        std::vector<int64_t> SliceDims, SubPerm;
        for (size_t I = 0; I < Rank; ++I) {
          if (int64_t(I) == P0)
            continue;
          SliceDims.push_back(R.InDims[I]);
          (int64_t(I) < P0 ? Before : After) *= R.InDims[I];
        }
        for (size_t K = 1; K < Rank; ++K)
          SubPerm.push_back(R.Perm[K] > P0 ? R.Perm[K] - 1 : R.Perm[K]);
        In = B.op("reshape", {N->operand(0),
                              B.ints({Before, R.InDims[size_t(P0)], After})});
        for (int64_t I = 0; I < R.InDims[size_t(P0)]; ++I) {
          Value *S = B.op("slice", {In, B.ints({I}), B.ints({I + 1}),
                                    B.ints({1}), B.ints({1})});
          Value *Sub = B.op("transpose", {B.op("reshape", {S, B.ints(SliceDims)})},
                            {{"perm", SubPerm}});
          Parts.push_back(Sub);
        }
        // Stacked along a merged first axis (n times the transposed slices'
        // first; the same bytes as a new leading axis of n), still rank 4.
        T = B.op("concat", Parts, {{"axis", int64_t(0)}});
      } else {
        In = B.op("reshape", {N->operand(0), B.ints(R.InDims)});
        T = Rank > 1 ? B.op("transpose", {In}, {{"perm", R.Perm}}) : In;
      }
      Value *Y = B.op("reshape", {T, B.ints(staticSizes(N->result()->type().Dims))});
      if (llvm::Error E = B.takeError())
        return E;
      if (!canReplaceValue(G, N->result(), Y))
        continue;
      // A user that takes one index of output axis 0 (q, k, v = qkv[0],
      // qkv[1], qkv[2]: a slice then a squeeze, as canonicalize writes a
      // gather) reads that index's part, which is never of rank 5.
      bool AxisZeroIsSplit =
          Split && N->result()->type().Dims[0].size() == int64_t(Parts.size());
      for (auto [Squeezed, Index] : pickedIndices(G, *N))
        if (AxisZeroIsSplit && Index < int64_t(Parts.size())) {
          Value *Part = Parts[size_t(Index)];
          if (Part->type() != Squeezed->type())
            Part = B.op("reshape",
                        {Part, B.ints(staticSizes(Squeezed->type().Dims))});
          if (llvm::Error E = B.takeError())
            return E;
          if (canReplaceValue(G, Squeezed, Part))
            replaceValue(G, Squeezed, Part);
        }
      replaceValue(G, N->result(), Y);
      G.erase(N);
      Stats.add(Split ? "split" : "lowered");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createLowerTransposeRank() {
  return std::make_unique<LowerTransposeRank>();
}

} // namespace kiln
