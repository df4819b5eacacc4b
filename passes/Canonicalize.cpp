// canonicalize: rewrites ops into the forms fusion and backends handle.
// conv1d becomes conv2d over a unit height (x, w unsqueezed at axis 2, result
// squeezed back), as PyTorch does for XNNPACK. matmul with a constant 2-D RHS
// and gemm with a constant B (or a dequantized integer one, as pre-quantized
// models hold), alpha = beta = 1 (e.g. after flatten) become
// linear with an [out, in] weight made at compile time; fused activations move.
// A mean over the spatial axes of an NCHW tensor (x.mean([2, 3]) in PyTorch)
// becomes global_avg_pool, squeezed when keepdims=0: the op backends run
// (XNNPACK's global average pooling, in int8 too). A gather of one constant
// index from a computed tensor (x[:, 0] of a ViT's class token, y[:, -1]
// of an LSTM's last step) becomes a slice (squeezed for a scalar index),
// which every target runs and whose index is never negative.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"
#include "IR/ShapeInference.h"
#include "IR/ops/FusedActivation.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cstring>

namespace kiln {

namespace {

bool isPlain(const Value *V) { return V && !V->type().Quant; }

/// The dequantize reading a 2-D integer constant (a pre-quantized model's
/// weight) that V is, or null.
const Node *dequantizedMatrix(const Value *V) {
  const Node *D = V ? V->producer() : nullptr;
  if (!D || !D->isOp("dequantize") || !D->operand(0)->constant() ||
      V->type().rank() != 2)
    return nullptr;
  return D;
}

bool isConstMatrix(const Value *V) {
  return isPlain(V) && V->type().rank() == 2 &&
         (V->constant() || dequantizedMatrix(V));
}

/// [R, C] -> [C, R], element by element whatever the element type.
Tensor transposed(const Tensor &T) {
  std::vector<int64_t> S = staticSizes(T.type().Dims);
  size_t E = elementSize(T.type().Elem);
  std::vector<uint8_t> Out(T.buffer().size());
  const uint8_t *In = T.buffer().data();
  for (int64_t R = 0; R < S[0]; ++R)
    for (int64_t C = 0; C < S[1]; ++C)
      std::memcpy(&Out[size_t(C * S[0] + R) * E], In + size_t(R * S[1] + C) * E,
                  E);
  return Tensor(TensorType(T.type().Elem, makeShape({S[1], S[0]})),
                Buffer::own(std::move(Out)));
}

/// A spatial ints attribute of a 1-D conv widened to 2-D: strides and
/// dilations [a] -> [Unit, a], pads [b, e] -> [0, b, 0, e]; empty stays empty
/// (the default).
std::vector<int64_t> widen(std::vector<int64_t> V, int64_t Unit) {
  if (V.size() == 1)
    return {Unit, V[0]};
  if (V.size() == 2)
    return {0, V[0], 0, V[1]};
  return V;
}

class Canonicalize : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (isConv1d(N) || isMatMulConst(N) || isGemmAsLinear(N) ||
          isSpatialMean(N) || isSingleGather(N))
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      const char *What = N->isOp("conv")          ? "conv1d-to-conv2d"
                         : N->isOp("matmul")      ? "matmul-to-linear"
                         : N->isOp("reduce_mean") ? "mean-to-global-avg-pool"
                         : N->isOp("gather")      ? "gather-to-slice"
                                                  : "gemm-to-linear";
      Created.clear();
      bool Done = N->isOp("conv")          ? convToConv2d(G, *N)
                  : N->isOp("reduce_mean") ? meanToGlobalPool(G, *N)
                  : N->isOp("gather")      ? gatherToSlice(G, *N)
                                           : toLinear(G, *N);
      if (!Done) {
        // Undo in reverse creation order: nothing half-rewritten remains.
        for (auto It = Created.rbegin(); It != Created.rend(); ++It)
          G.erase(*It);
        continue;
      }
      replaceValue(G, N->result(), Created.back()->result());
      Value *OldWeight = N->numOperands() > 1 ? N->operand(1) : nullptr;
      G.erase(N);
      if (OldWeight) // the weight, or the mean's axes
        eraseIfDeadConstant(G, OldWeight);
      Stats.add(What);
      Changed = true;
    }
    // A weight transposed for a rewrite that was then undone.
    for (Value *W : Transposed)
      eraseIfDeadConstant(G, W);
    return Changed;
  }

private:
  std::vector<Node *> Created;
  llvm::DenseMap<Value *, Value *> TransposedWeights;
  std::vector<Value *> Transposed; // the values of TransposedWeights, in order

  static bool isConv1d(const Node &N) {
    return N.isOp("conv") && isPlain(N.operand(0)) && isPlain(N.operand(1)) &&
           N.operand(0)->type().rank() == 3 && N.operand(1)->type().rank() == 3;
  }
  static bool isMatMulConst(const Node &N) {
    return N.isOp("matmul") && isPlain(N.operand(0)) &&
           isConstMatrix(N.operand(1)) &&
           N.operand(0)->type().Elem == N.operand(1)->type().Elem;
  }
  static bool isGemmAsLinear(const Node &N) {
    if (!N.isOp("gemm") || !isPlain(N.operand(0)) ||
        !isConstMatrix(N.operand(1)) || N.getFloat("alpha") != 1.0 ||
        N.getInt("trans_a") != 0)
      return false;
    const Value *C = N.numOperands() > 2 ? N.operand(2) : nullptr;
    if (!C)
      return true;
    const Dim &Out = N.result()->type().Dims[1];
    const Dim &CD = C->type().rank() == 1 ? C->type().Dims[0] : Dim();
    return N.getFloat("beta") == 1.0 && isPlain(C) && CD.isStatic() &&
           (CD.size() == 1 || CD == Out);
  }

  /// reduce_mean over axes {2, 3} of a rank-4 float tensor.
  static bool isSpatialMean(const Node &N) {
    if (!N.isOp("reduce_mean") || N.numOperands() != 2 ||
        !isPlain(N.operand(0)) || N.operand(0)->type().rank() != 4 ||
        !isFloatType(N.operand(0)->type().Elem))
      return false;
    auto Axes = constantInts(N.operand(1));
    if (!Axes || Axes->size() != 2)
      return false;
    std::vector<int64_t> A;
    for (int64_t X : *Axes)
      A.push_back(X < 0 ? X + 4 : X);
    std::sort(A.begin(), A.end());
    return A == std::vector<int64_t>{2, 3};
  }

  /// gather of one constant index along a static axis of a computed value.
  static bool isSingleGather(const Node &N) {
    // Float data only: integer gathers are shape arithmetic (shape ->
    // gather -> concat -> reshape), which folding and the batch-polymorphic
    // lowering read as such.
    if (!N.isOp("gather") || N.operand(0)->constant() ||
        !isPlain(N.operand(0)) || !isFloatType(N.operand(0)->type().Elem))
      return false;
    auto Idx = constantInts(N.operand(1));
    auto Axis = normalizeAxis(N.getInt("axis"), N.operand(0)->type().rank());
    if (!Axis) {
      llvm::consumeError(Axis.takeError());
      return false;
    }
    const Dim &D = N.operand(0)->type().Dims[size_t(*Axis)];
    return Idx && Idx->size() == 1 && D.isStatic() &&
           (*Idx)[0] >= -D.size() && (*Idx)[0] < D.size();
  }

  bool gatherToSlice(Graph &G, Node &N) {
    const TensorType &X = N.operand(0)->type();
    int64_t Axis = *normalizeAxis(N.getInt("axis"), X.rank());
    int64_t I = (*constantInts(N.operand(1)))[0];
    if (I < 0)
      I += X.Dims[size_t(Axis)].size();
    auto Ints = [&](int64_t V) {
      return constant(G, N, Tensor::fromValues<int64_t>(ElementType::I64,
                                                        makeShape({1}), {V}));
    };
    Node *Slice = create(G, N, "slice", {N.operand(0), Ints(I), Ints(I + 1),
                                         Ints(Axis), Ints(1)});
    if (!Slice)
      return false;
    if (N.operand(1)->type().rank() == 0 &&
        !create(G, N, "squeeze", {Slice->result(), Ints(Axis)}))
      return false;
    return finish(N);
  }

  bool meanToGlobalPool(Graph &G, Node &N) {
    Node *Pool = create(G, N, "global_avg_pool", {N.operand(0)});
    if (!Pool)
      return false;
    if (N.getInt("keepdims") == 0) {
      Value *Axes = constant(G, N, Tensor::fromValues<int64_t>(
                                       ElementType::I64, makeShape({2}), {2, 3}));
      if (!create(G, N, "squeeze", {Pool->result(), Axes}))
        return false;
    }
    return finish(N);
  }

  /// Creates a node (remembered for undo); null if inference fails.
  Node *create(Graph &G, const Node &For, llvm::StringRef Op,
               llvm::ArrayRef<Value *> Operands, AttrMap Attrs = {}) {
    auto N = createInferred(G, Op, Operands, std::move(Attrs), 1,
                            const_cast<Node *>(&For));
    if (!N) {
      llvm::consumeError(N.takeError());
      return nullptr;
    }
    (*N)->setSources(For.sources());
    Created.push_back(*N);
    return *N;
  }
  Value *constant(Graph &G, const Node &For, Tensor T) {
    Value *V = G.createConstant(std::move(T), "", const_cast<Node *>(&For));
    Created.push_back(V->producer());
    return V;
  }
  Value *axis2(Graph &G, const Node &For) {
    return constant(G, For, Tensor::fromValues<int64_t>(
                                ElementType::I64, makeShape({1}), {2}));
  }

  /// The last created node must compute what N did.
  bool finish(const Node &N) {
    Value *R = Created.back()->result();
    if (!isCompatible(N.result()->type(), R->type()))
      return false;
    R->setType(N.result()->type());
    R->setName(N.result()->name());
    return canReplaceValue(*N.graph(), N.result(), R);
  }

  bool convToConv2d(Graph &G, Node &N) {
    Node *X = create(G, N, "unsqueeze", {N.operand(0), axis2(G, N)});
    Value *W = N.operand(1);
    if (const Tensor *T = W->constant()) {
      Shape S = T->type().Dims;
      S.insert(S.begin() + 2, Dim(1));
      W = constant(G, N, Tensor(TensorType(T->type().Elem, S), T->buffer()));
    } else if (Node *WN = create(G, N, "unsqueeze", {W, axis2(G, N)})) {
      W = WN->result();
    } else {
      return false;
    }
    if (!X)
      return false;
    AttrMap Attrs = N.attrs();
    for (const char *Name : {"strides", "dilations", "pads"})
      if (N.hasAttr(Name))
        Attrs[Name] = widen(N.getInts(Name), 1);
    Value *B = N.numOperands() > 2 ? N.operand(2) : nullptr;
    Node *Conv = create(G, N, "conv", {X->result(), W, B}, std::move(Attrs));
    if (!Conv || !create(G, N, "squeeze", {Conv->result(), axis2(G, N)}))
      return false;
    return finish(N);
  }

  /// dequantize(C) transposed: dequantize(C^T), a per-axis scale's axis
  /// swapped with it, before N.
  static Value *transposedDequantize(Graph &G, const Node &D, Node &N) {
    const Tensor &C = *D.operand(0)->constant();
    Tensor T = transposed(C);
    TensorType TT = T.type();
    TT.Quant = C.type().Quant;
    if (TT.Quant && TT.Quant->isPerAxis())
      TT.Quant->Axis = 1 - TT.Quant->Axis;
    Value *TC = G.createConstant(Tensor(TT, T.buffer()), "", &N);
    AttrMap Attrs = D.attrs();
    if (D.operand(1)->type().rank() == 1) {
      int64_t Axis = D.getInt("axis");
      Attrs["axis"] = int64_t(1 - (Axis < 0 ? Axis + 2 : Axis));
    }
    std::vector<Value *> Operands(D.operands().begin(), D.operands().end());
    Operands[0] = TC;
    TensorType R = D.result()->type();
    std::swap(R.Dims[0], R.Dims[1]);
    return G.createNode(D.def(), Operands, {R}, std::move(Attrs), &N)->result();
  }

  bool toLinear(Graph &G, Node &N) {
    Value *B = N.operand(1);
    Value *W = B; // gemm with trans_b already holds [out, in]
    if (N.isOp("matmul") || N.getInt("trans_b") == 0) {
      Value *&Cached = TransposedWeights[B];
      if (!Cached) {
        // Before the first user: matches are rewritten in graph order.
        Cached = B->constant() ? G.createConstant(transposed(*B->constant()), "", &N)
                               : transposedDequantize(G, *B->producer(), N);
        Cached->producer()->setSources(B->producer()->sources());
        Transposed.push_back(Cached);
      }
      W = Cached;
    }
    std::vector<Value *> Operands = {N.operand(0), W};
    if (N.isOp("gemm") && N.numOperands() > 2 && N.operand(2))
      Operands.push_back(N.operand(2)); // the bias
    // A fused activation (from an earlier fuse-activation run) moves along.
    FusedActivation Act = readFusedActivation(N);
    return create(G, N, "linear", Operands,
                  Act.isNone() ? AttrMap() : Act.toAttrs()) &&
           finish(N);
  }
};

} // namespace

std::unique_ptr<Pass> createCanonicalize() {
  return std::make_unique<Canonicalize>();
}

} // namespace kiln
