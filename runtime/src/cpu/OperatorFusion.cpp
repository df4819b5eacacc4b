#include "cpu/OperatorFusion.h"

#include <algorithm>

namespace kiln::rt {

namespace {

int32_t onlyOutput(const fb::Operator &Op) {
  return Op.outputs() && Op.outputs()->size() == 1 ? Op.outputs()->Get(0) : -1;
}

bool isF32(const LoadedModel &M, int32_t T) {
  return T >= 0 && M.Tensors[size_t(T)].DType == fb::DType::F32;
}

/// Operator I is an f32 FULLY_CONNECTED whose output only the GELU at I + 1
/// reads.
bool isFullyConnectedGelu(const LoadedModel &M, size_t I,
                          const std::vector<int> &Readers) {
  const fb::Operator &Fc = M.op(I), &Gelu = M.op(I + 1);
  if (Fc.kind() != fb::OpKind::FULLY_CONNECTED ||
      Gelu.kind() != fb::OpKind::UNARY ||
      Fc.engine() == fb::Engine::REFERENCE ||
      Gelu.engine() == fb::Engine::REFERENCE || !Fc.inputs() ||
      !Gelu.inputs() || Gelu.inputs()->size() != 1)
    return false;
  fb::UnaryOp U = Gelu.options_as_UnaryOptions()->op();
  int32_t Y = onlyOutput(Fc), G = onlyOutput(Gelu);
  if ((U != fb::UnaryOp::GELU && U != fb::UnaryOp::GELU_TANH) || Y < 0 ||
      G < 0 || Gelu.inputs()->Get(0) != Y || Readers[size_t(Y)] != 1)
    return false;
  for (int32_t T : *Fc.inputs())
    if (T >= 0 && !isF32(M, T))
      return false;
  return isF32(M, Y) && isF32(M, G) &&
         M.Tensors[size_t(Y)].Shape == M.Tensors[size_t(G)].Shape;
}

} // namespace

std::vector<SessionFusion> findSessionFusions(const LoadedModel &M) {
  // Readers per tensor and the last operator reading it; graph inputs and
  // outputs count as read by everything.
  std::vector<int> Readers(M.Tensors.size(), 0);
  std::vector<size_t> LastReader(M.Tensors.size(), 0);
  for (size_t I = 0; I < M.numOperators(); ++I)
    if (const auto *In = M.op(I).inputs())
      for (int32_t T : *In)
        if (T >= 0) {
          ++Readers[size_t(T)];
          LastReader[size_t(T)] = I;
        }
  for (const std::vector<int32_t> *Io : {&M.Inputs, &M.Outputs})
    for (int32_t T : *Io) {
      ++Readers[size_t(T)];
      LastReader[size_t(T)] = M.numOperators();
    }

  std::vector<SessionFusion> Out;
  for (size_t I = 0; I + 1 < M.numOperators(); ++I) {
    if (isFullyConnectedGelu(M, I, Readers)) {
      Out.push_back({SessionFusion::Kind::FullyConnectedGelu, I, I + 1, -1});
      continue;
    }
    const fb::Operator &Conv = M.op(I), &Add = M.op(I + 1);
    if (Conv.kind() != fb::OpKind::CONV_2D ||
        Add.kind() != fb::OpKind::BINARY ||
        Add.options_as_BinaryOptions()->op() != fb::BinaryOp::ADD ||
        Conv.engine() == fb::Engine::REFERENCE ||
        Add.engine() == fb::Engine::REFERENCE || !Add.inputs() ||
        Add.inputs()->size() != 2)
      continue;
    int32_t C = onlyOutput(Conv);
    int32_t A = Add.inputs()->Get(0), B = Add.inputs()->Get(1);
    if (C < 0 || onlyOutput(Add) < 0 || Readers[size_t(C)] != 1 ||
        (A == C) == (B == C))
      continue;
    int32_t Other = A == C ? B : A;
    // The conv would write its own input.
    if (std::find(Conv.inputs()->begin(), Conv.inputs()->end(), Other) !=
        Conv.inputs()->end())
      continue;
    const TensorDesc &CD = M.Tensors[size_t(C)], &OD = M.Tensors[size_t(Other)],
                     &YD = M.Tensors[size_t(onlyOutput(Add))];
    if (CD.DType != fb::DType::F32 || OD.DType != fb::DType::F32 ||
        YD.DType != fb::DType::F32 || OD.Shape != CD.Shape ||
        YD.Shape != CD.Shape || OD.isConstant() ||
        LastReader[size_t(Other)] != I + 1)
      continue;
    Out.push_back({SessionFusion::Kind::ConvAdd, I, I + 1, Other});
  }
  return Out;
}

} // namespace kiln::rt
