// Attention as one dispatch (kernels/attention.comp): the chain
//   [TRANSPOSE k] -> MATMUL(q, k^T) -> {MUL|DIV by a scalar constant,
//   ADD of a bias, RESHAPE keeping rows}* -> SOFTMAX(last axis) -> MATMUL(., v)
// becomes one dispatch over every head, at the last matmul. Each tensor
// inside the chain is read only by the next operator and is not a graph
// output, so none of them needs memory: the scores never leave the
// invocation. Chains that differ (a second reader, a log-softmax, a clamp
// inside, more than two biases) are lowered operator by operator.
#include "backends/gpu/FusionMatching.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

namespace kiln::vulkan {

namespace {

constexpr size_t MaxBiases = 2;
/// attention.comp's COLUMNS: the output columns one invocation sums.
constexpr int64_t Columns = 32;

int64_t count(const std::vector<int64_t> &Dims) {
  int64_t N = 1;
  for (int64_t D : Dims)
    N *= D;
  return N;
}

/// The value of a one-element f32 constant, or NaN.
float scalarConstant(const Lowering &L, int32_t T) {
  if (L.tensor(T).buffer < 0 || L.tensor(T).dtype != fb::DType::F32 ||
      count(L.tensor(T).shape) != 1)
    return NAN;
  return L.floats(T).front();
}

/// Whether Bias broadcasts to Dims (numpy's trailing alignment) without
/// growing Dims.
bool broadcastsTo(const std::vector<int64_t> &Bias,
                  const std::vector<int64_t> &Dims) {
  if (Bias.size() > Dims.size() || Dims.size() > size_t(DomainRank))
    return false;
  for (size_t I = 0; I < Bias.size(); ++I) {
    int64_t B = Bias[Bias.size() - 1 - I], D = Dims[Dims.size() - 1 - I];
    if (B != D && B != 1)
      return false;
  }
  return true;
}

/// Follows the chain from the scores T (written by QK) to the softmax's
/// matmul; fills C or returns false.
bool followScores(const Lowering &L, int32_t T, AttentionChain &C) {
  for (;;) {
    const fb::OperatorT *R = soleReader(L, T);
    if (!R)
      return false;
    int32_t Y = R->outputs[0];
    if (R->kind == fb::OpKind::SOFTMAX) {
      const auto &O = *R->options.AsSoftmaxOptions();
      if (O.log || size_t(O.axis) + 1 != L.tensor(T).shape.size())
        return false;
      C.Absorbed.push_back(R);
      const fb::OperatorT *PV = soleReader(L, Y);
      if (!PV || PV->kind != fb::OpKind::MATMUL || PV->inputs[0] != Y)
        return false;
      C.PV = PV;
      return true;
    }
    if (R->kind == fb::OpKind::RESHAPE) {
      if (L.storage(Y).C4 ||
          L.tensor(Y).shape.back() != L.tensor(T).shape.back())
        return false;
    } else if (R->kind == fb::OpKind::BINARY) {
      const auto &O = *R->options.AsBinaryOptions();
      if (!unclamped(O.output_min, O.output_max) ||
          L.tensor(Y).shape != L.tensor(T).shape)
        return false;
      int32_t Other = R->inputs[R->inputs[0] == T ? 1 : 0];
      if (Other == T)
        return false;
      float S = scalarConstant(L, Other);
      if (O.op == fb::BinaryOp::ADD) {
        if (C.Biases.size() == MaxBiases ||
            !broadcastsTo(L.tensor(Other).shape, L.tensor(Y).shape))
          return false;
        C.Biases.push_back({Other, L.tensor(Y).shape, 1.0f});
      } else if (O.op == fb::BinaryOp::MUL && !std::isnan(S)) {
        C.Alpha *= S;
        for (auto &B : C.Biases)
          B.Mult *= S;
      } else if (O.op == fb::BinaryOp::DIV && !std::isnan(S) &&
                 R->inputs[0] == T && S != 0) {
        C.Alpha /= S;
        for (auto &B : C.Biases)
          B.Mult /= S;
      } else {
        return false;
      }
    } else {
      return false;
    }
    C.Absorbed.push_back(R);
    T = Y;
  }
}

/// The keys' transpose that the QK matmul reads, when it only swaps the
/// last two axes of an activation read by nothing else and computed by an
/// operator (a graph input's transpose is where an fp16 file converts it
/// from the caller's f32).
const fb::OperatorT *keysTranspose(const Lowering &L, int32_t KT) {
  const fb::OperatorT *P = L.producer(KT);
  if (!P || P->kind != fb::OpKind::TRANSPOSE || !soleReader(L, KT) ||
      !L.producer(P->inputs[0]))
    return nullptr;
  const auto &Perm = P->options.AsTransposeOptions()->perm;
  size_t R = Perm.size();
  if (R < 2 || L.storage(P->inputs[0]).C4)
    return nullptr;
  for (size_t I = 0; I + 2 < R; ++I)
    if (Perm[I] != int32_t(I))
      return nullptr;
  return Perm[R - 2] == int32_t(R - 1) && Perm[R - 1] == int32_t(R - 2)
             ? P
             : nullptr;
}

/// The batch count of an operand whose last two dims hold Inner elements:
/// P, or 1 when it is broadcast; 0 when it is neither.
int64_t operandBatch(const std::vector<int64_t> &Dims, int64_t Inner,
                     int64_t P) {
  int64_t B = count(Dims) / Inner;
  return B == P || B == 1 ? B : 0;
}

std::optional<AttentionChain> matchFrom(const Lowering &L,
                                        const fb::OperatorT &QK) {
  const auto &O = *QK.options.AsMatMulOptions();
  if (!unclamped(O.output_min, O.output_max))
    return std::nullopt;
  AttentionChain C;
  C.QK = &QK;
  int32_t S = QK.outputs[0];
  const std::vector<int64_t> &SD = L.tensor(S).shape;
  if (SD.size() < 2 || !followScores(L, S, C))
    return std::nullopt;
  int64_t M = SD[SD.size() - 2], Keys = SD.back();
  if (M <= 0 || Keys <= 0 || count(SD) > INT32_MAX) // the kernel's int index
    return std::nullopt;
  int64_t P = count(SD) / (M * Keys);
  const std::vector<int64_t> &QD = L.tensor(QK.inputs[0]).shape,
                             &KD = L.tensor(QK.inputs[1]).shape;
  int64_t Depth = QD.empty() ? 0 : QD.back();
  if (Depth <= 0)
    return std::nullopt;
  C.KeysTranspose = keysTranspose(L, QK.inputs[1]);
  const fb::OperatorT &PV = *C.PV;
  const std::vector<int64_t> &AD = L.tensor(PV.inputs[0]).shape,
                             &VD = L.tensor(PV.inputs[1]).shape;
  if (AD.size() < 2 || AD[AD.size() - 2] != M || AD.back() != Keys ||
      VD.size() < 2 || VD[VD.size() - 2] != Keys)
    return std::nullopt;
  int64_t DV = VD.back();
  if (DV <= 0)
    return std::nullopt;
  const std::vector<int64_t> &YD = L.tensor(PV.outputs[0]).shape;
  if (count(YD) != P * M * DV || L.storage(PV.outputs[0]).C4)
    return std::nullopt;
  C.Q = {operandBatch(QD, M * Depth, P), M * Depth};
  C.K = {operandBatch(KD, Depth * Keys, P), Depth * Keys};
  C.V = {operandBatch(VD, Keys * DV, P), Keys * DV};
  if (!C.Q.Batch || !C.K.Batch || !C.V.Batch)
    return std::nullopt;
  C.Rows = P * M;
  C.M = M;
  C.Keys = Keys;
  C.Depth = Depth;
  C.DV = DV;
  if (C.KeysTranspose)
    C.Absorbed.push_back(C.KeysTranspose);
  C.Absorbed.push_back(&QK);
  return C;
}

} // namespace

std::vector<AttentionChain> findAttentionChains(const Lowering &L) {
  // Each operator joins one chain at most, the first in graph order: two
  // chains can meet (scores of two products added together; one chain's
  // result the next one's queries), and an operator absorbed by one must
  // not be another's dispatch.
  std::vector<AttentionChain> Chains;
  std::set<const fb::OperatorT *> Taken;
  for (const auto &Op : L.model().operators) {
    if (Op->kind != fb::OpKind::MATMUL)
      continue;
    std::optional<AttentionChain> C = matchFrom(L, *Op);
    if (!C)
      continue;
    std::vector<const fb::OperatorT *> Ops = C->Absorbed;
    Ops.push_back(C->PV);
    bool Free = std::none_of(Ops.begin(), Ops.end(), [&](const auto *O) {
      return Taken.count(O);
    });
    if (!Free)
      continue;
    Taken.insert(Ops.begin(), Ops.end());
    Chains.push_back(std::move(*C));
  }
  // What a dispatch reads must be computed by a dispatch: no operand may
  // come from an operator another chain absorbed (its result has no place).
  std::set<const fb::OperatorT *> Absorbed;
  for (const AttentionChain &C : Chains)
    Absorbed.insert(C.Absorbed.begin(), C.Absorbed.end());
  auto fromAbsorbed = [&](int32_t T) {
    return Absorbed.count(L.producer(T)) > 0;
  };
  std::vector<AttentionChain> Kept;
  for (AttentionChain &C : Chains) {
    int32_t Keys =
        C.KeysTranspose ? C.KeysTranspose->inputs[0] : C.QK->inputs[1];
    bool Bad = fromAbsorbed(C.QK->inputs[0]) || fromAbsorbed(Keys) ||
               fromAbsorbed(C.PV->inputs[1]);
    for (const auto &B : C.Biases)
      Bad = Bad || fromAbsorbed(B.Tensor);
    if (!Bad)
      Kept.push_back(std::move(C));
  }
  return Kept;
}

std::string lowerAttention(Lowering &L, const AttentionChain &C) {
  const fb::OperatorT &PV = *C.PV;
  int32_t Keys = C.KeysTranspose ? C.KeysTranspose->inputs[0] : C.QK->inputs[1];
  BindingRef QB = bindOperand(L, C.QK->inputs[0]);
  BindingRef KB = bindOperand(L, Keys);
  BindingRef VB = bindOperand(L, PV.inputs[1]);
  std::vector<BindingRef> Biases;
  for (const auto &B : C.Biases)
    Biases.push_back(bindOperand(L, B.Tensor));
  while (Biases.size() < MaxBiases)
    Biases.push_back(L.bindFloats({0.0f}, -1));
  PendingDispatch &D = L.dispatch("attention");
  const auto &O = *PV.options.AsMatMulOptions();
  clampConstants(D, O.output_min, O.output_max);
  auto Set = [&](uint32_t Id, int64_t V) { D.Spec[Id] = uint32_t(int32_t(V)); };
  Set(20, C.Rows);
  Set(21, C.M);
  Set(22, C.Keys);
  Set(23, C.Depth);
  Set(24, C.DV);
  Set(25, C.Q.Batch == 1 ? 0 : C.Q.Inner);
  Set(26, C.K.Batch == 1 ? 0 : C.K.Inner);
  Set(27, C.V.Batch == 1 ? 0 : C.V.Inner);
  D.Spec[28] = floatBits(C.Alpha);
  Set(29, C.KeysTranspose ? 1 : 0);
  Set(30, int64_t(C.Biases.size()));
  for (size_t I = 0; I < C.Biases.size(); ++I) {
    const auto &B = C.Biases[I];
    uint32_t Base = 40 + 20 * uint32_t(I);
    DomainDims Dims = domainOf(B.Dims);
    DomainDims Own = domainOf(L.tensor(B.Tensor).shape);
    int64_t Stride = 1;
    for (int A = DomainRank - 1; A >= 0; --A) {
      Set(Base + uint32_t(A), Dims[size_t(A)]);
      Set(Base + 6 + uint32_t(A), Own[size_t(A)] == 1 ? 0 : Stride);
      Stride *= Own[size_t(A)];
    }
    D.Spec[Base + 12] = floatBits(B.Mult);
  }
  D.Bindings = {QB, KB, VB, Biases[0], Biases[1], L.bindTensor(PV.outputs[0])};
  // One invocation per row and block of output columns.
  flatGroups(D, uint64_t(C.Rows) * uint64_t((C.DV + Columns - 1) / Columns));
  return "";
}

} // namespace kiln::vulkan
