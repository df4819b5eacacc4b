// fold-integer-op-scales: ONNX Runtime's dynamic QOperator models compute a
// quantized matmul or conv as integers and scale the result afterwards:
//   (q, s_a, zp_a) = DynamicQuantizeLinear(x)
//   y = Cast<f32>(MatMulInteger(q, w, zp_a, zp_w)) * (s_a * s_w)
// which the importer writes as
//   cast<f32>(cast<i32>(matmul(dequantize(q, 1, zp_a), dequantize(w, 1, zp_w))))
//     * mul(s_a, s_w)
// This pass moves the scales onto the two dequantizes,
//   matmul(dequantize(q, s_a, zp_a), dequantize(w, s_w, zp_w))
// which is the same product (each term (q - zp_a)(w - zp_w) s_a s_w), and
// is kiln's int8-dynamic form when q comes from dynamic_quantize
// (adopt-imported-qdq), or its static int8 form when it comes from a
// quantize. s_w is a constant, per tensor or per output channel (matmul:
// b's last axis; conv: the weight's first); s_a is a scalar value or absent
// (a constant scale then goes to the weight whole). Anything else is left
// as imported, which computes the same values in float.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"

#include <cstring>
#include <optional>
#include <vector>

namespace kiln {

namespace {

bool castTo(const Node *N, llvm::StringRef Type) {
  return N && N->isOp("cast") && N->getString("to") == Type;
}

/// V is used once, by its consumer, and is not a graph output.
bool usedOnce(const Value *V) {
  return V->numUses() == 1 && !V->producer()->graph()->isOutput(V);
}

/// A dequantize whose scale is a constant of ones: X - zp.
const Node *minusZeroPoint(const Value *V) {
  const Node *D = V->producer();
  if (!D || !D->isOp("dequantize") || D->numOperands() < 2)
    return nullptr;
  const Tensor *S = D->operand(1)->constant();
  if (!S || S->type().Elem != ElementType::F32)
    return nullptr;
  for (int64_t I = 0; I < S->numElements(); ++I)
    if (S->at<float>(I) != 1.0f)
      return nullptr;
  return D;
}

const Value *zeroPoint(const Node &D) {
  return D.numOperands() > 2 ? D.operand(2) : nullptr;
}

bool perTensor(const Value *V) { return !V || V->type().rank() == 0; }

/// The matched chain around one mul.
struct Match {
  Node *Mul = nullptr, *ToF32 = nullptr, *ToI32 = nullptr, *Op = nullptr;
  const Node *DA = nullptr, *DB = nullptr;
  Value *ScaleA = nullptr;         // rank-0 f32, or null
  std::vector<float> ScaleB;       // 1 value, or one per output channel
  int64_t Channels = 0, WeightAxis = 0;
};

/// Splits the mul's other operand S into a scalar value and a constant.
bool splitScale(Value *S, Match &M) {
  auto Scalar = [](const Value *V) {
    return V->type().rank() == 0 && V->type().Elem == ElementType::F32;
  };
  const Tensor *C = S->constant();
  Value *A = nullptr;
  if (!C) {
    const Node *P = S->producer();
    if (P && P->isOp("mul") && P->numOperands() == 2) {
      for (unsigned I = 0; I < 2 && !C; ++I)
        if (P->operand(I)->constant() && Scalar(P->operand(1 - I))) {
          C = P->operand(I)->constant();
          A = P->operand(1 - I);
        }
    } else if (Scalar(S)) {
      A = S;
    }
    if (!A)
      return false;
  }
  M.ScaleA = A;
  if (!C) {
    M.ScaleB = {1.0f};
    return true;
  }
  // The constant must vary along the result's channel axis only.
  if (C->type().Elem != ElementType::F32)
    return false;
  const TensorType &R = M.Op->result()->type();
  int64_t Rank = R.rank(), CRank = C->type().rank();
  int64_t Axis = M.Op->isOp("conv") ? 1 : Rank - 1;
  if (CRank > Rank)
    return false;
  for (int64_t J = 0; J < CRank; ++J) {
    const Dim &D = C->type().Dims[size_t(J)];
    int64_t RAxis = Rank - CRank + J;
    if (D.size() != 1 && (RAxis != Axis || D.size() != M.Channels))
      return false;
  }
  for (int64_t I = 0; I < C->numElements(); ++I)
    M.ScaleB.push_back(C->at<float>(I));
  return M.ScaleB.size() == 1 || int64_t(M.ScaleB.size()) == M.Channels;
}

std::optional<Match> match(Node &Mul) {
  if (!Mul.isOp("mul") || Mul.numOperands() != 2 ||
      Mul.result()->type().Elem != ElementType::F32)
    return std::nullopt;
  for (unsigned I = 0; I < 2; ++I) {
    Match M;
    M.Mul = &Mul;
    M.ToF32 = Mul.operand(I)->producer();
    if (!castTo(M.ToF32, "f32") || !usedOnce(M.ToF32->result()))
      continue;
    M.ToI32 = M.ToF32->operand(0)->producer();
    if (!castTo(M.ToI32, "i32") || !usedOnce(M.ToI32->result()))
      continue;
    M.Op = M.ToI32->operand(0)->producer();
    // (A fused activation would apply to the unscaled sums.)
    if (!M.Op || !(M.Op->isOp("matmul") || M.Op->isOp("conv")) ||
        !usedOnce(M.Op->result()) ||
        (M.Op->hasAttr("activation") && M.Op->getString("activation") != "none") ||
        (M.Op->isOp("conv") && M.Op->numOperands() > 2 && M.Op->operand(2)))
      continue;
    M.DA = minusZeroPoint(M.Op->operand(0));
    M.DB = minusZeroPoint(M.Op->operand(1));
    if (!M.DA || !M.DB || Mul.result()->type() != M.Op->result()->type())
      continue;
    const TensorType &W = M.DB->operand(0)->type();
    M.WeightAxis = M.Op->isOp("conv") ? 0 : W.rank() - 1;
    // A 1-D matmul operand has no output channels; b's parameters, where
    // they are per axis, must be along its channels.
    int64_t BAxis = M.DB->getInt("axis");
    if (BAxis < 0)
      BAxis += W.rank();
    if (W.rank() < 2 || !W.Dims[size_t(M.WeightAxis)].isStatic() ||
        (!(perTensor(M.DB->operand(1)) && perTensor(zeroPoint(*M.DB))) &&
         BAxis != M.WeightAxis))
      continue;
    M.Channels = W.Dims[size_t(M.WeightAxis)].size();
    if (!splitScale(Mul.operand(1 - I), M))
      continue;
    // A scalar scale for a goes with a per-tensor zero point only; a
    // per-channel scale for b needs b's zero point per channel or constant.
    if (M.ScaleA && !perTensor(zeroPoint(*M.DA)))
      continue;
    const Value *ZB = zeroPoint(*M.DB);
    if (M.ScaleB.size() > 1 && ZB && ZB->type().rank() == 0 && !ZB->constant())
      continue;
    return M;
  }
  return std::nullopt;
}

Node *createDequantize(Graph &G, Value *Q, Value *Scale, Value *Zp,
                       int64_t Axis, Node *Before) {
  AttrMap Attrs;
  Attrs["axis"] = Axis;
  return G.createNode(OpRegistry::instance().get("dequantize"), {Q, Scale, Zp},
                      {TensorType(ElementType::F32, Q->type().Dims)},
                      std::move(Attrs), Before);
}

/// The weight's zero point with one entry per channel (a scalar constant
/// repeated), or as it is.
Value *zeroPointPerChannel(Graph &G, const Match &M, Node *Before) {
  Value *Z = M.DB->numOperands() > 2 ? M.DB->operand(2) : nullptr;
  if (!Z || M.ScaleB.size() == 1 || Z->type().rank() == 1)
    return Z;
  const Tensor &T = *Z->constant();
  size_t Bytes = elementSize(T.type().Elem);
  std::vector<uint8_t> Data(size_t(M.Channels) * Bytes);
  for (int64_t C = 0; C < M.Channels; ++C)
    std::memcpy(Data.data() + size_t(C) * Bytes, T.buffer().data(), Bytes);
  return G.createConstant(
      Tensor(TensorType(T.type().Elem, {M.Channels}), Buffer::own(std::move(Data))),
      "", Before);
}

Node *rewrite(Graph &G, const Match &M) {
  Node *Before = M.Mul;
  Value *A = M.DA->result();
  if (M.ScaleA) {
    A = createDequantize(G, M.DA->operand(0), M.ScaleA,
                         M.DA->numOperands() > 2 ? M.DA->operand(2) : nullptr,
                         M.DA->getInt("axis"), Before)->result();
    if (!M.DA->operand(0)->name().empty())
      A->setName(M.DA->operand(0)->name() + ".dq");
  }
  Shape ScaleDims;
  if (M.ScaleB.size() > 1 || (M.DB->operand(1)->type().rank() == 1))
    ScaleDims = {M.Channels};
  std::vector<float> Scales = M.ScaleB;
  if (!ScaleDims.empty())
    Scales.resize(size_t(M.Channels), M.ScaleB[0]);
  Value *SB = G.createConstant(
      Tensor::fromValues<float>(ElementType::F32, ScaleDims, Scales), "", Before);
  Value *B = createDequantize(G, M.DB->operand(0), SB, zeroPointPerChannel(G, M, Before),
                              M.WeightAxis, Before)->result();
  if (!M.DB->operand(0)->name().empty()) {
    SB->setName(M.DB->operand(0)->name() + ".scale");
    B->setName(M.DB->operand(0)->name() + ".dq");
  }
  std::vector<Value *> Operands(M.Op->operands().begin(), M.Op->operands().end());
  Operands[0] = A;
  Operands[1] = B;
  Node *Op = G.createNode(M.Op->def(), Operands, {M.Op->result()->type()},
                          M.Op->attrs(), Before);
  Op->setSources(M.Op->sources());
  for (const Node *N : {M.ToI32, M.ToF32, M.Mul})
    Op->addSources(*N);
  return Op;
}

class FoldIntegerOpScales : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Muls;
    for (Node &N : G.nodes())
      if (N.isOp("mul"))
        Muls.push_back(&N);
    bool Changed = false;
    for (Node *Mul : Muls) {
      std::optional<Match> M = match(*Mul);
      if (!M)
        continue;
      // The new op is no graph output, so it can take the mul's place
      // (canReplaceValue); what the rewrite leaves unused, dce removes.
      Node *Op = rewrite(G, *M);
      replaceValue(G, Mul->result(), Op->result());
      for (Node *Dead : {M->Mul, M->ToF32, M->ToI32, M->Op})
        G.erase(Dead);
      Stats.add(Op->isOp("conv") ? "convs-folded" : "matmuls-folded");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFoldIntegerOpScales() {
  return std::make_unique<FoldIntegerOpScales>();
}

} // namespace kiln
