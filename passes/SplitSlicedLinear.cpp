// split-sliced-linear: a linear layer whose result is read only by slices of
// its last (feature) axis becomes one linear per slice, each with its rows
// of the weight and bias:
//   slice(x . w^T + b, [s, e), axis -1) = x . w[s:e]^T + b[s:e]
// PyTorch's nn.MultiheadAttention (torchvision's ViT and Swin) projects q,
// k and v with one packed [3d, d] weight and slices the result three ways;
// after the split the three projections write q, k and v directly, and no
// slice copies them. The slices must be disjoint, of step 1, and constant,
// and the weight and bias read by this linear alone, so that no row is
// computed twice and the weights stored do not grow (rows no slice reads
// are dropped). A fused activation is elementwise and goes with each part;
// a one-value bias goes whole to each. The weight and bias must be float
// constants (a quantized linear keeps its form).
#include "passes/FusionSupport.h"
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"

#include "IR/ShapeInference.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace kiln {

namespace {

struct Part {
  Node *Slice;
  int64_t Begin, End; // rows of the weight, [Begin, End)
};

/// Slice S's row range of a last axis of Features, when S reads only that
/// axis, with step 1 and constant bounds.
llvm::Optional<Part> rowsOf(Node &S, int64_t Rank, int64_t Features) {
  if (!S.isOp("slice") || S.numOperands() < 3)
    return llvm::None;
  auto Starts = constantInts(S.operand(1)), Ends = constantInts(S.operand(2));
  auto Axes = S.numOperands() > 3 && S.operand(3)
                  ? constantInts(S.operand(3))
                  : llvm::Optional<std::vector<int64_t>>();
  auto Steps = S.numOperands() > 4 && S.operand(4)
                   ? constantInts(S.operand(4))
                   : llvm::Optional<std::vector<int64_t>>(std::vector<int64_t>{1});
  if (!Starts || !Ends || !Steps || Starts->size() != 1 || Ends->size() != 1 ||
      Steps->size() != 1 || (*Steps)[0] != 1)
    return llvm::None;
  int64_t Axis = Axes ? (Axes->size() == 1 ? (*Axes)[0] : -2) : 0;
  if (Axis < 0)
    Axis += Rank;
  if (Axis != Rank - 1 || (S.numOperands() > 3 && S.operand(3) && !Axes))
    return llvm::None;
  auto Clamp = [&](int64_t V) {
    return std::clamp<int64_t>(V < 0 ? V + Features : V, 0, Features);
  };
  int64_t B = Clamp((*Starts)[0]), E = Clamp((*Ends)[0]);
  if (E <= B)
    return llvm::None;
  return Part{&S, B, E};
}

/// Rows [Begin, End) of constant C, whose rows are RowBytes long.
Tensor rows(const Tensor &C, int64_t Begin, int64_t End, size_t RowBytes) {
  Shape Dims = C.type().Dims;
  Dims[0] = Dim(End - Begin);
  const uint8_t *From = C.buffer().data() + size_t(Begin) * RowBytes;
  std::vector<uint8_t> Bytes(From, From + size_t(End - Begin) * RowBytes);
  return Tensor(TensorType(C.type().Elem, Dims), Buffer::own(std::move(Bytes)));
}

/// Nothing reads N's results.
bool isDead(const Graph &G, const Node &N) {
  for (Value *R : N.results())
    if (R->hasUses() || G.isOutput(R))
      return false;
  return true;
}

/// The parts of linear L, when every use of its result is a slice that
/// qualifies and no two overlap.
llvm::Optional<std::vector<Part>> match(const Graph &G, Node &L) {
  if (!L.isOp("linear") || L.numResults() != 1 || G.isOutput(L.result()) ||
      !L.result()->hasUses())
    return llvm::None;
  const Value *W = L.operand(1), *B = L.numOperands() > 2 ? L.operand(2) : nullptr;
  if (!isFloatConstant(W) || (B && !isFloatConstant(B)) ||
      W->type().rank() != 2 || L.result()->type().Quant)
    return llvm::None;
  // Constants the linear alone reads: the parts' rows replace them (tied
  // or merged weights would be stored twice).
  if (W->numUses() != 1 || (B && W != B && B->numUses() != 1))
    return llvm::None;
  const TensorType &Y = L.result()->type();
  if (!Y.Dims.back().isStatic())
    return llvm::None;
  int64_t Features = Y.Dims.back().size();
  // A bias of one value per feature (one value broadcast is kept whole).
  if (B && (B->type().rank() != 1 ||
            (B->type().Dims[0].size() != Features &&
             B->type().Dims[0].size() != 1)))
    return llvm::None;
  std::vector<Part> Parts;
  for (const Use &U : L.result()->uses()) {
    if (isDead(G, *U.User))
      continue; // a shape query folding has answered; dce removes it
    if (U.Index != 0)
      return llvm::None;
    auto P = rowsOf(*U.User, Y.rank(), Features);
    if (!P)
      return llvm::None;
    Parts.push_back(*P);
  }
  if (Parts.empty())
    return llvm::None;
  std::sort(Parts.begin(), Parts.end(),
            [](const Part &A, const Part &C) { return A.Begin < C.Begin; });
  for (size_t I = 1; I < Parts.size(); ++I)
    if (Parts[I].Begin < Parts[I - 1].End)
      return llvm::None;
  return Parts;
}

class SplitSlicedLinear : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<std::pair<Node *, std::vector<Part>>> Matches;
    for (Node &N : G.nodes())
      if (auto Parts = match(G, N))
        Matches.push_back({&N, std::move(*Parts)});
    for (auto &[L, Parts] : Matches) {
      Stats.add("split");
      Stats.add("parts", int64_t(Parts.size()));
      Value *X = L->operand(0), *W = L->operand(1);
      Value *B = L->numOperands() > 2 ? L->operand(2) : nullptr;
      const Tensor &WT = *W->constant();
      size_t WRow = WT.buffer().size() / size_t(WT.type().Dims[0].size());
      int64_t Features = L->result()->type().Dims.back().size();
      for (const Part &P : Parts) {
        NodeBuilder Build(G, *P.Slice);
        std::string Rows = llvm::formatv(".rows_{0}_{1}", P.Begin, P.End);
        std::vector<Value *> Operands = {
            X, Build.constant(rows(WT, P.Begin, P.End, WRow))};
        Operands.back()->setName(W->name() + Rows);
        if (B && B->type().Dims[0].size() == 1 && Features != 1) {
          Operands.push_back(B); // one value for every feature
        } else if (B) {
          const Tensor &BT = *B->constant();
          Operands.push_back(Build.constant(
              rows(BT, P.Begin, P.End, elementSize(BT.type().Elem))));
          Operands.back()->setName(B->name() + Rows);
        }
        Value *Y = Build.op("linear", Operands, L->attrs());
        if (llvm::Error E = Build.takeError())
          return E;
        Y->producer()->addSources(*L);
        Y->setName(P.Slice->result()->name());
        G.replaceAllUsesWith(P.Slice->result(), Y);
        std::vector<Value *> Bounds(P.Slice->operands().begin() + 1,
                                    P.Slice->operands().end());
        G.erase(P.Slice);
        eraseUnusedConstants(G, std::move(Bounds));
      }
      if (L->result()->hasUses())
        continue; // read by dead nodes only: dce removes it with them
      G.erase(L);
      eraseUnusedConstants(G, {W, B});
    }
    return !Matches.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createSplitSlicedLinear() {
  return std::make_unique<SplitSlicedLinear>();
}

} // namespace kiln
