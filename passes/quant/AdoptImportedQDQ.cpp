// adopt-imported-qdq: makes the quantization a model arrived with (QDQ ONNX,
// quantized TorchScript) kiln's own int8 form, keeping the author's scales:
//  - u8 values become i8: q' = q - 128, zp' = zp - 128, exact;
//  - an int8 weight with zero point z whose q - z all fit in int8 gets zero
//    point 0, exact; any other asymmetric weight keeps its layer in float,
//    and a warning names each such layer;
//  - an int32 bias whose scale is not s_in * s_w[c], or a float bias, is
//    requantized to it as PyTorch's kernels do at run time:
//    b' = round((b - zp) * s_b / (s_in * s_w[c]));
//  - the parameters go into the integer values' types, as insert-qdq writes;
//  - quantize(dequantize(q)) with q's own parameters is q, and a reshape of
//    a quantized value runs as dequantize -> reshape -> quantize (exact).
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"
#include "passes/quant/ImportedQDQ.h"
#include "passes/quant/QDQBuilder.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/WeightQuantization.h"

#include "IR/OpRegistry.h"
#include "Support/Logging.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace kiln {

namespace {

/// A constant of the scale operand's shape holding Values (i8 or i32).
Value *zeroPoints(Graph &G, const Node &QDQ, ElementType E,
                  const std::vector<int64_t> &Values, Node *Before) {
  Shape Dims = QDQ.operand(1)->type().Dims;
  if (E == ElementType::I8) {
    std::vector<int8_t> V(Values.begin(), Values.end());
    return G.createConstant(Tensor::fromValues<int8_t>(E, Dims, V), "", Before);
  }
  std::vector<int32_t> V(Values.begin(), Values.end());
  return G.createConstant(Tensor::fromValues<int32_t>(E, Dims, V), "", Before);
}

void setZeroPoint(Node &QDQ, Value *Z) {
  if (QDQ.numOperands() > 2)
    QDQ.setOperand(2, Z);
  else
    QDQ.addOperand(Z);
}

std::vector<int64_t> shifted(std::vector<int64_t> Zp, int64_t By) {
  for (int64_t &Z : Zp)
    Z += By;
  return Zp;
}

/// A reshape-like op on a quantized value (ONNX Runtime's QOperator models
/// reshape uint8 tensors) runs between dequantize and quantize with the
/// value's own parameters instead, the form backends move int8 values in:
/// movement(q) -> quantize(movement(dequantize(q))), exact.
bool moveThroughFloat(Graph &G, Node &M) {
  static const char *const Moves[] = {"reshape", "flatten", "transpose",
                                      "squeeze", "unsqueeze", "identity"};
  if (!llvm::any_of(Moves, [&](const char *Op) { return M.isOp(Op); }) ||
      M.numResults() != 1 || G.isOutput(M.result()))
    return false;
  Node *Q = M.operand(0)->producer();
  if (!Q || !Q->isOp("quantize") || !qdqParams(*Q) || qdqParams(*Q)->isPerAxis())
    return false;
  const OpRegistry &R = OpRegistry::instance();
  std::vector<Value *> Params(Q->operands().begin() + 1, Q->operands().end());
  std::vector<Value *> DOps = {Q->result()};
  DOps.insert(DOps.end(), Params.begin(), Params.end());
  AttrMap Axis;
  if (Q->hasAttr("axis"))
    Axis["axis"] = Q->getInt("axis");
  Node *D = G.createNode(R.get("dequantize"), DOps,
                         {TensorType(ElementType::F32, Q->result()->type().Dims)},
                         std::move(Axis), &M);
  D->setSources(Q->sources());
  M.setOperand(0, D->result());
  Value *Y = M.result();
  TensorType Int = Y->type();
  Y->setType(TensorType(ElementType::F32, Int.Dims));
  std::vector<Value *> QOps = {Y};
  QOps.insert(QOps.end(), Params.begin(), Params.end());
  Node *Requant = G.createNode(R.get("quantize"), QOps, {Int}, Q->attrs(),
                               nodeAfter(&M));
  Requant->setSources(M.sources());
  std::vector<std::pair<Node *, unsigned>> Users;
  for (const Use &U : Y->uses())
    if (U.User != Requant)
      Users.push_back({U.User, U.Index});
  for (auto &[User, Index] : Users)
    User->setOperand(Index, Requant->result());
  return true;
}

/// quantize to u8 whose every user is a dequantize: both sides move to i8.
bool shiftQuantizeToI8(Graph &G, Node &Q) {
  Value *R = Q.result();
  auto P = qdqParams(Q);
  if (R->type().Elem != ElementType::U8 || !P || G.isOutput(R) || !R->hasUses())
    return false;
  std::vector<Node *> Users;
  for (const Use &U : R->uses()) {
    if (!U.User->isOp("dequantize") || U.Index != 0 || !qdqParams(*U.User))
      return false;
    Users.push_back(U.User);
  }
  setZeroPoint(Q, zeroPoints(G, Q, ElementType::I8, shifted(P->ZeroPoints, -128), &Q));
  R->setType(TensorType(ElementType::I8, R->type().Dims));
  for (Node *D : Users)
    setZeroPoint(*D, zeroPoints(G, *D, ElementType::I8,
                                shifted(qdqParams(*D)->ZeroPoints, -128), D));
  return true;
}

/// dequantize of a u8 constant: the i8 constant q - 128 with zp - 128.
bool shiftConstantToI8(Graph &G, Node &D) {
  const Tensor *C = D.operand(0)->constant();
  auto P = qdqParams(D);
  if (!C || C->type().Elem != ElementType::U8 || !P)
    return false;
  std::vector<int8_t> V(size_t(C->numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = int8_t(int(C->at<uint8_t>(int64_t(I))) - 128);
  D.setOperand(0, G.createConstant(
                      Tensor::fromValues<int8_t>(ElementType::I8, C->type().Dims, V),
                      D.operand(0)->name() + ".i8", &D));
  setZeroPoint(D, zeroPoints(G, D, ElementType::I8, shifted(P->ZeroPoints, -128), &D));
  return true;
}

/// A zero point computed by a fill (constant_of_shape) becomes the constant
/// it computes, so backends read the dequantize as a narrow constant.
bool materializeZeroPoint(Graph &G, Node &N) {
  Value *Z = N.numOperands() > 2 ? N.operand(2) : nullptr;
  auto P = qdqParams(N);
  // (a u8 fill is the u8 shift's, which reads it)
  if (!Z || Z->constant() || !P ||
      (Z->type().Elem != ElementType::I8 && Z->type().Elem != ElementType::I32))
    return false;
  N.setOperand(2, zeroPoints(G, N, Z->type().Elem, P->ZeroPoints, &N));
  return true;
}

/// The parameters go into the integer value's type: a quantize's result, or
/// the constant a dequantize reads (copied when others read it too).
bool annotate(Graph &G, Node &N) {
  auto P = qdqParams(N);
  Value *V = N.isOp("quantize") ? N.result() : N.operand(0);
  if (!P || V->type().Quant || !isIntegerType(V->type().Elem))
    return false;
  TensorType T = V->type();
  T.Quant = P;
  if (N.isOp("quantize")) {
    V->setType(T);
    return true;
  }
  if (!isConstantValue(V))
    return false;
  if (V->numUses() == 1) {
    setConstantType(V, T);
    return true;
  }
  N.setOperand(0, G.createConstant(Tensor(T, V->constant()->buffer()),
                                   V->name() + ".q", &N));
  return true;
}

/// The int8 weight of a weighted op in kiln's form: one scale per output
/// channel (a per-tensor scale repeated), zero points 0 (removed where
/// q - z fits int8). False (layer kept float) when that is not exact.
bool symmetricWeight(Graph &G, Node &Dq, int64_t Axis, std::string &Why) {
  const QuantParams &P = *Dq.operand(0)->type().Quant;
  const Tensor &C = *Dq.operand(0)->constant();
  if (C.type().Elem != ElementType::I8) {
    Why = "its weight is " + elementTypeName(C.type().Elem).str() + ", not int8";
    return false;
  }
  std::vector<int64_t> Sizes = staticSizes(C.type().Dims);
  if (Axis < 0 || Axis >= int64_t(Sizes.size()) ||
      (P.isPerAxis() && P.Axis != Axis)) {
    Why = "its weight's scales are not per tensor or per output channel";
    return false;
  }
  int64_t Channels = Sizes[size_t(Axis)], Inner = 1;
  for (size_t I = size_t(Axis + 1); I < Sizes.size(); ++I)
    Inner *= Sizes[I];
  bool Zero = true;
  for (int64_t Z : P.ZeroPoints)
    Zero &= Z == 0;
  if (Zero && P.isPerAxis())
    return true; // already kiln's form
  QuantParams Sym;
  Sym.Axis = Axis;
  std::vector<int8_t> V(size_t(C.numElements()));
  for (size_t I = 0; I < V.size(); ++I) {
    size_t Ch = (I / size_t(Inner)) % size_t(Channels);
    int64_t Z = P.ZeroPoints[P.isPerAxis() ? Ch : 0];
    int64_t Q = C.at<int8_t>(int64_t(I)) - Z;
    if (Q < -128 || Q > 127) {
      Why = "its asymmetric weight (zero point " + std::to_string(Z) +
            ") has no exact symmetric int8 form";
      return false;
    }
    V[I] = int8_t(Q);
  }
  for (int64_t Ch = 0; Ch < Channels; ++Ch)
    Sym.Scales.push_back(P.Scales[P.isPerAxis() ? size_t(Ch) : 0]);
  Sym.ZeroPoints.assign(Sym.Scales.size(), 0);
  std::string Name = Dq.operand(0)->name();
  Value *W = insertDequantizedConstant(
      G, Tensor::fromValues<int8_t>(ElementType::I8, C.type().Dims, V), Sym,
      Dq.result()->type().Elem, &Dq, Name.empty() ? "" : Name + ".per_channel");
  W->producer()->setSources(Dq.sources());
  if (!canReplaceValue(G, Dq.result(), W)) {
    Why = "its weight is also a graph output";
    return false;
  }
  replaceValue(G, Dq.result(), W);
  return true;
}

/// An int32 bias dequantize(q, s_b, zp) at s_in * s_w[c], from its
/// integers in double: q - zp where s_b equals it (exact), else
/// round((q - zp) * s_b / (s_in * s_w[c])). Null unless B is a 1-D integer
/// constant read through dequantize, one value per weight scale (any
/// length for one scale).
Value *requantizedBias(Graph &G, const Value *B, float InScale,
                       llvm::ArrayRef<float> WScales, Node *Before,
                       bool &Rescaled) {
  Rescaled = false;
  const Node *D = B->producer();
  if (!D || !D->isOp("dequantize") || !D->operand(0)->constant())
    return nullptr;
  const Tensor &Q = *D->operand(0)->constant();
  auto P = qdqParams(*D);
  int64_t Len = Q.numElements();
  if (!P || Q.type().rank() != 1 || !isIntegerType(Q.type().Elem) ||
      (WScales.size() > 1 && Len != int64_t(WScales.size())) ||
      (P->isPerAxis() && int64_t(P->Scales.size()) != Len))
    return nullptr;
  QuantParams Out;
  std::vector<int32_t> V(static_cast<size_t>(Len));
  for (int64_t I = 0; I < Len; ++I) {
    size_t Src = P->isPerAxis() ? size_t(I) : 0;
    float Target = InScale * WScales[WScales.size() > 1 ? size_t(I) : 0];
    double Level = double(Q.asInt(I) - P->ZeroPoints[Src]);
    if (P->Scales[Src] != Target) {
      Level = std::nearbyint(Level * double(P->Scales[Src]) / double(Target));
      Rescaled = true;
    }
    V[size_t(I)] = int32_t(std::clamp<double>(Level, INT32_MIN, INT32_MAX));
  }
  for (float S : WScales)
    Out.Scales.push_back(InScale * S);
  Out.ZeroPoints.assign(Out.Scales.size(), 0);
  Out.Axis = Out.Scales.size() > 1 ? 0 : -1;
  return insertDequantizedConstant(
      G, Tensor::fromValues<int32_t>(ElementType::I32, Q.type().Dims, V), Out,
      ElementType::F32, Before, B->name().empty() ? "" : B->name() + ".i32");
}

/// True when bias B is already int32 with scale s_in * s_w[c] and zero point 0.
bool biasFits(const Value *B, float InScale, llvm::ArrayRef<float> WScales) {
  const Node *D = B->producer();
  if (!D || !D->isOp("dequantize") || !D->operand(0)->constant() ||
      D->operand(0)->type().Elem != ElementType::I32)
    return false;
  auto P = qdqParams(*D);
  if (!P || P->Scales.size() != WScales.size())
    return false;
  for (size_t C = 0; C < WScales.size(); ++C)
    if (P->ZeroPoints[C] != 0 || P->Scales[C] != InScale * WScales[C])
      return false;
  return true;
}

/// quantize(dequantize(q)) with the same parameters and element type is q
/// (round((q - z) s / s) + z = q): a data-movement op PyTorch ran on the
/// quantized tensor (contiguous, a no-op view) left such a pair.
bool removeRoundTrip(Graph &G, Node &Q) {
  Node *D = Q.operand(0)->producer();
  if (!D || !D->isOp("dequantize"))
    return false;
  auto PQ = qdqParams(Q), PD = qdqParams(*D);
  Value *In = D->operand(0);
  if (!PQ || !PD || !(*PQ == *PD) || In->type().Elem != Q.result()->type().Elem ||
      !canReplaceValue(G, Q.result(), In))
    return false;
  replaceValue(G, Q.result(), In);
  return true;
}

class AdoptImportedQDQ : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Nodes;
    for (Node &N : G.nodes())
      Nodes.push_back(&N);
    bool Changed = false;
    for (Node *N : Nodes)
      if (moveThroughFloat(G, *N)) {
        Stats.add("int8-moves-through-float");
        Changed = true;
      }
    Nodes.clear();
    for (Node &N : G.nodes())
      Nodes.push_back(&N);
    for (Node *N : Nodes)
      if (N->isOp("quantize") && shiftQuantizeToI8(G, *N)) {
        Stats.add("u8-activations-to-i8");
        Changed = true;
      } else if (N->isOp("dequantize") && shiftConstantToI8(G, *N)) {
        Stats.add("u8-weights-to-i8");
        Changed = true;
      }
    for (Node *N : Nodes)
      if ((N->isOp("quantize") || N->isOp("dequantize")) &&
          materializeZeroPoint(G, *N)) {
        Stats.add("fills-folded");
        Changed = true;
      }
    for (Node *N : Nodes)
      if ((N->isOp("quantize") || N->isOp("dequantize")) && annotate(G, *N)) {
        Stats.add("annotated");
        Changed = true;
      }
    for (Node *N : Nodes)
      if (N->isOp("quantize") && removeRoundTrip(G, *N)) {
        Stats.add("round-trips-removed");
        Changed = true;
      }
    std::vector<std::string> KeptFloat;
    for (Node *N : Nodes)
      Changed |= adoptWeighted(G, *N, Stats, KeptFloat);
    if (!KeptFloat.empty()) {
      std::string List;
      for (const std::string &K : KeptFloat)
        List += "\n  " + K;
      log().warn("{} layer(s) of this pre-quantized model stay float, since "
                 "kiln's int8 kernels cannot keep their scheme exactly:{}",
                 KeptFloat.size(), List);
    }
    return Changed;
  }

private:
  /// Weight and bias of a weighted op between int8 activations.
  static bool adoptWeighted(Graph &G, Node &N, PassStats &Stats,
                            std::vector<std::string> &KeptFloat) {
    Int8OpInfo Info = int8OpInfo(N);
    if (Info.Role != Int8Role::Weighted || N.numOperands() < 2)
      return false;
    Node *In = N.operand(0)->producer();
    Node *W = N.operand(unsigned(Info.Weight))->producer();
    if (!In || !In->isOp("dequantize") || !W || !W->isOp("dequantize") ||
        !W->operand(0)->constant() || !W->operand(0)->type().Quant)
      return false;
    // Dynamic quantization (int8 weights, the input quantized at run time):
    // already kiln's int8-dynamic form.
    if (const Node *Dyn = In->operand(0)->producer();
        Dyn && Dyn->isOp("dynamic_quantize")) {
      Stats.add("layers-dynamic-int8");
      return false;
    }
    const auto &InQ = In->operand(0)->type().Quant;
    if (!InQ || InQ->isPerAxis() || In->operand(0)->type().Elem != ElementType::I8)
      return false;
    // The input's dequantize must read it with its own parameters (an
    // x_scale other than the producer's would be a requantization).
    if (auto P = qdqParams(*In); !P || !(*P == *InQ))
      return false;
    std::string Why;
    Value *Before = N.operand(unsigned(Info.Weight));
    if (!symmetricWeight(G, *W, Info.WeightAxis, Why)) {
      KeptFloat.push_back("node " + N.displayName() + " (" + N.opName().str() +
                          "): " + Why);
      Stats.add("layers-kept-float");
      return false;
    }
    Stats.add("layers-kept-scales");
    bool Changed = N.operand(unsigned(Info.Weight)) != Before;
    W = N.operand(unsigned(Info.Weight))->producer();
    int B = Info.Bias;
    if (B < 0 || unsigned(B) >= N.numOperands() || !N.operand(unsigned(B)))
      return Changed;
    const std::vector<float> &WScales = W->operand(0)->type().Quant->Scales;
    Value *Bias = N.operand(unsigned(B));
    if (biasFits(Bias, InQ->Scales[0], WScales))
      return Changed;
    // A float bias is quantized as insert-qdq quantizes one; an integer one
    // is moved to s_in * s_w[c] from its integers.
    bool Rescaled = false;
    Value *QB = Bias->constant()
                    ? quantizeBias(G, Bias, InQ->Scales[0], WScales, &N)
                    : requantizedBias(G, Bias, InQ->Scales[0], WScales, &N, Rescaled);
    if (QB) {
      N.setOperand(unsigned(B), QB);
      Stats.add(Bias->constant() ? "biases-quantized"
                : Rescaled       ? "biases-requantized"
                                 : "biases-per-channel");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createAdoptImportedQDQ() {
  return std::make_unique<AdoptImportedQDQ>();
}

} // namespace kiln
