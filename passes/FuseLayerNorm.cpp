// fuse-layer-norm: LayerNorm written out, as torch.onnx.export leaves
// nn.LayerNorm below opset 17,
//   d = x - reduce_mean(x, axes)            (the trailing axes, keepdims)
//   y = d / sqrt(reduce_mean(d^2, axes) + eps)
//   y = y * gamma + beta                    (optional, either or both)
// (d^2 as pow(d, 2) or mul(d, d); the add of eps either way round), becomes
// layer_norm(x, gamma, beta) {axis, epsilon}: one op instead of nine, which
// the CPU runs as one kernel (oneDNN, Eigen), the Vulkan target as its
// layer_norm kernel, and NNAPI expands its own way. Without gamma the scale
// is a constant of ones. Left alone: other axes than trailing ones, another
// exponent, an eps that is not a constant scalar, an intermediate value read
// elsewhere, gamma or beta of another shape than the normalized dims.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"
#include "IR/ShapeInference.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kiln {

namespace {

/// Whether N has no fused activation (most ops cannot carry one).
bool plain(const Node &N) {
  return !N.def().findAttr("activation") || readFusedActivation(N).isNone();
}

/// The user of a value read once, or null.
Node *soleUser(const Graph &G, const Value *V) {
  return hasSingleUse(G, V) ? V->uses().front().User : nullptr;
}

/// A float scalar (or one-element) constant's value.
llvm::Optional<double> scalarOf(const Value *V) {
  auto C = floatConstant(V);
  if (!C || C->size() != 1)
    return llvm::None;
  return (*C)[0];
}

/// The first axis of a keepdims reduce_mean over the trailing axes of its
/// f32 input (first .. rank - 1), or None.
llvm::Optional<int64_t> trailingMeanAxis(const Node &N) {
  if (!N.isOp("reduce_mean") || N.numOperands() != 2 ||
      N.getInt("keepdims") != 1)
    return llvm::None;
  const TensorType &X = N.operand(0)->type();
  if (X.Elem != ElementType::F32 || X.Quant || !X.isStatic())
    return llvm::None;
  auto Axes = constantInts(N.operand(1));
  if (!Axes || Axes->empty())
    return llvm::None;
  std::vector<int64_t> A;
  for (int64_t I : *Axes)
    A.push_back(I < 0 ? I + X.rank() : I);
  std::sort(A.begin(), A.end());
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I] != X.rank() - int64_t(A.size()) + int64_t(I))
      return llvm::None;
  return A.front();
}

/// The operand of a two-operand N other than V, or null.
Value *otherOperand(const Node &N, const Value *V) {
  if (N.numOperands() != 2)
    return nullptr;
  if (N.operand(0) == V)
    return N.operand(1);
  return N.operand(1) == V ? N.operand(0) : nullptr;
}

struct LayerNormMatch {
  Value *X = nullptr;
  int64_t Axis = 0;
  double Eps = 0;
  Value *Gamma = nullptr, *Beta = nullptr;
  Node *Last = nullptr;        // the node whose result is the layer norm's
  std::vector<Node *> Erased;  // the others
};

/// Whether V, a constant, has the normalized dims' shape (with leading 1s
/// allowed), so that multiplying or adding it is per normalized element.
bool isPerElement(const Value *V, const TensorType &X, int64_t Axis) {
  if (!V || !isFloatConstant(V) || V->type().Elem != ElementType::F32)
    return false;
  const Shape &C = V->type().Dims;
  const int64_t Trailing = X.rank() - Axis;
  if (int64_t(C.size()) > X.rank())
    return false;
  for (size_t I = 0; I < C.size(); ++I) {
    int64_t FromEnd = int64_t(C.size()) - int64_t(I);
    int64_t Want = FromEnd <= Trailing ? X.Dims[size_t(X.rank() - FromEnd)].size() : 1;
    if (C[I].size() != Want)
      return false;
  }
  return true;
}

/// Matches from the first reduce_mean (Mean).
bool matchLayerNorm(const Graph &G, Node &Mean, LayerNormMatch &M) {
  auto Axis = trailingMeanAxis(Mean);
  if (!Axis)
    return false;
  M.X = Mean.operand(0);
  M.Axis = *Axis;
  Node *Sub = soleUser(G, Mean.result());
  if (!Sub || !Sub->isOp("sub") || Sub->operand(0) != M.X ||
      Sub->operand(1) != Mean.result() || !plain(*Sub))
    return false;
  Value *D = Sub->result();
  if (G.isOutput(D))
    return false;
  // d is read by the square (once, or twice by mul(d, d)) and the division.
  Node *Square = nullptr, *Div = nullptr;
  for (const Use &U : D->uses()) {
    Node *N = U.User;
    if (N->isOp("div") && N->operand(0) == D && !Div)
      Div = N;
    else if (N->isOp("pow") && N->operand(0) == D && !Square) {
      auto E = scalarOf(N->operand(1));
      if (!E || *E != 2.0)
        return false;
      Square = N;
    } else if (N->isOp("mul") && N->operand(0) == D && N->operand(1) == D &&
               (!Square || Square == N))
      Square = N;
    else
      return false;
  }
  if (!Square || !Div)
    return false;
  Node *Var = soleUser(G, Square->result());
  if (!Var || trailingMeanAxis(*Var) != M.Axis ||
      Var->operand(0) != Square->result())
    return false;
  Node *AddEps = soleUser(G, Var->result());
  if (!AddEps || !AddEps->isOp("add") || !plain(*AddEps))
    return false;
  auto Eps = scalarOf(otherOperand(*AddEps, Var->result()));
  if (!Eps || *Eps < 0)
    return false;
  M.Eps = *Eps;
  Node *Sqrt = soleUser(G, AddEps->result());
  if (!Sqrt || !Sqrt->isOp("sqrt") || soleUser(G, Sqrt->result()) != Div ||
      Div->operand(1) != Sqrt->result() || !plain(*Div))
    return false;
  M.Erased = {&Mean, Sub, Square, Var, AddEps, Sqrt};
  M.Last = Div;
  const TensorType &X = M.X->type();
  // The affine tail: * gamma, then + beta (each optional).
  if (Node *Mul = soleUser(G, M.Last->result()))
    if (Mul->isOp("mul") && plain(*Mul) &&
        isPerElement(otherOperand(*Mul, M.Last->result()), X, M.Axis)) {
      M.Gamma = otherOperand(*Mul, M.Last->result());
      M.Erased.push_back(M.Last);
      M.Last = Mul;
    }
  if (Node *Add = soleUser(G, M.Last->result()))
    if (Add->isOp("add") && plain(*Add) &&
        isPerElement(otherOperand(*Add, M.Last->result()), X, M.Axis)) {
      M.Beta = otherOperand(*Add, M.Last->result());
      M.Erased.push_back(M.Last);
      M.Last = Add;
    }
  return M.Last->result()->type() == X;
}

class FuseLayerNorm : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Means;
    for (Node &N : G.nodes())
      if (N.isOp("reduce_mean"))
        Means.push_back(&N);
    std::vector<Node *> Gone; // erased by an earlier match
    bool Changed = false;
    for (Node *Mean : Means) {
      if (std::find(Gone.begin(), Gone.end(), Mean) != Gone.end())
        continue;
      LayerNormMatch M;
      if (!matchLayerNorm(G, *Mean, M))
        continue;
      const TensorType &X = M.X->type();
      Value *Scale = M.Gamma;
      if (!Scale) {
        std::vector<int64_t> Sizes;
        for (int64_t I = M.Axis; I < X.rank(); ++I)
          Sizes.push_back(X.Dims[size_t(I)].size());
        int64_t Count = std::accumulate(Sizes.begin(), Sizes.end(), int64_t(1),
                                        std::multiplies<int64_t>());
        Scale = G.createConstant(
            makeFloatTensor(ElementType::F32, Sizes,
                            std::vector<double>(size_t(Count), 1.0)),
            "", M.Last);
      }
      std::vector<Value *> Operands = {M.X, Scale};
      if (M.Beta)
        Operands.push_back(M.Beta);
      Node *Norm = G.createNode(
          OpRegistry::instance().get("layer_norm"), Operands, {X},
          {{"axis", M.Axis}, {"epsilon", M.Eps}}, M.Last);
      Norm->setSources(M.Last->sources());
      for (Node *N : M.Erased)
        Norm->addSources(*N);
      if (!canReplaceValue(G, M.Last->result(), Norm->result())) {
        G.erase(Norm);
        eraseUnusedConstants(G, {Scale});
        continue;
      }
      replaceValue(G, M.Last->result(), Norm->result());
      std::vector<Value *> Constants;
      M.Erased.push_back(M.Last);
      // Users before producers: the chain was collected in order.
      for (auto It = M.Erased.rbegin(); It != M.Erased.rend(); ++It) {
        for (Value *V : (*It)->operands())
          Constants.push_back(V);
        Gone.push_back(*It);
        G.erase(*It);
      }
      eraseUnusedConstants(G, Constants);
      Stats.add("fused");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFuseLayerNorm() {
  return std::make_unique<FuseLayerNorm>();
}

} // namespace kiln
