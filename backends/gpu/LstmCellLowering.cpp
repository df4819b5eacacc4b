// An unrolled LSTM step's cell as one dispatch (kernels/lstm_cell.comp).
// unroll-recurrence writes each step as
//   s = sigmoid(g[:, a:a+3H]),  u = tanh(g[:, b:b+H]),
//   c = s_f * c_prev + s_i * u,  y = s_o * tanh(c)
// (s_i, s_f, s_o: slices of s; ONNX's gate order puts them at 0, 2H and H,
// PyTorch's differs, so the offsets are read from the slices). The eleven
// operators become one dispatch at the last one (y's MUL), which writes c
// too: the next step reads it. Every other tensor inside the step is read
// only by the next operator of the step; a step that differs (peepholes, a
// clip, another reader) is lowered operator by operator.
#include "backends/gpu/VulkanLowering.h"

#include <cmath>
#include <optional>
#include <set>

namespace kiln::vulkan {

namespace {

bool unaryIs(const fb::OperatorT *Op, fb::UnaryOp U) {
  return Op && Op->kind == fb::OpKind::UNARY &&
         Op->options.AsUnaryOptions()->op == U;
}

bool binaryIs(const fb::OperatorT *Op, fb::BinaryOp B) {
  if (!Op || Op->kind != fb::OpKind::BINARY)
    return false;
  const auto &O = *Op->options.AsBinaryOptions();
  return O.op == B && std::isinf(O.output_min) && O.output_min < 0 &&
         std::isinf(O.output_max) && O.output_max > 0;
}

/// The one reader of T when T is an f32 PLAIN activation that is not a
/// graph output.
const fb::OperatorT *onlyReader(const Lowering &L, int32_t T) {
  const auto &R = L.readers(T);
  if (R.size() != 1 || L.isGraphOutput(T) || L.tensor(T).buffer >= 0 ||
      L.tensor(T).dtype != fb::DType::F32 || L.storage(T).C4)
    return nullptr;
  return R.front();
}

/// For a SLICE of X along its last axis only (step 1, every other axis
/// whole): its first index there; -1 otherwise.
int64_t lastAxisStart(const Lowering &L, const fb::OperatorT &S) {
  if (S.kind != fb::OpKind::SLICE)
    return -1;
  const auto &O = *S.options.AsSliceOptions();
  const auto &X = L.tensor(S.inputs[0]).shape, &Y = L.tensor(S.outputs[0]).shape;
  size_t R = X.size();
  if (R == 0 || Y.size() != R || O.starts.size() != R || O.steps.size() != R)
    return -1;
  for (size_t A = 0; A + 1 < R; ++A)
    if (O.starts[A] != 0 || O.steps[A] != 1 || X[A] != Y[A])
      return -1;
  return O.steps[R - 1] == 1 ? O.starts[R - 1] : -1;
}

/// The other operand of binary Op than T (-1 when both are T).
int32_t otherOperand(const fb::OperatorT &Op, int32_t T) {
  if (Op.inputs[0] == T && Op.inputs[1] != T)
    return Op.inputs[1];
  if (Op.inputs[1] == T && Op.inputs[0] != T)
    return Op.inputs[0];
  return -1;
}

std::optional<LstmCell> matchFrom(const Lowering &L,
                                  const fb::OperatorT &Sigmoid) {
  LstmCell C;
  int32_t S = Sigmoid.outputs[0];
  const fb::OperatorT *GateSlice = L.producer(Sigmoid.inputs[0]);
  if (!GateSlice || onlyReader(L, Sigmoid.inputs[0]) != &Sigmoid)
    return std::nullopt;
  int64_t GateStart = lastAxisStart(L, *GateSlice);
  C.G = GateSlice->inputs[0];
  const std::vector<int64_t> &GD = L.tensor(C.G).shape;
  if (GateStart < 0 || GD.empty() || L.tensor(C.G).buffer >= 0 ||
      L.storage(C.G).C4 || L.tensor(C.G).dtype != fb::DType::F32)
    return std::nullopt;
  int64_t Width = GD.back(), Three = L.tensor(S).shape.back();
  if (Three % 3 != 0)
    return std::nullopt;
  C.Hidden = Three / 3;
  C.Rows = 1;
  for (size_t A = 0; A + 1 < GD.size(); ++A)
    C.Rows *= GD[A];
  C.Width = Width;
  // g's readers: the gates' slice and the candidate's, into a tanh.
  const fb::OperatorT *CandTanh = nullptr;
  for (const fb::OperatorT *R : L.readers(C.G)) {
    if (R == GateSlice)
      continue;
    int64_t Start = lastAxisStart(L, *R);
    const fb::OperatorT *T = Start < 0 ? nullptr : onlyReader(L, R->outputs[0]);
    if (CandTanh || !unaryIs(T, fb::UnaryOp::TANH) ||
        L.tensor(R->outputs[0]).shape.back() != C.Hidden)
      return std::nullopt;
    C.UOff = Start;
    CandTanh = T;
    C.Absorbed.insert(C.Absorbed.end(), {R, T});
  }
  if (!CandTanh || L.readers(C.G).size() != 2)
    return std::nullopt;
  int32_t U = CandTanh->outputs[0];
  // s's three readers: slices of H, each into one MUL.
  const auto &SR = L.readers(S);
  if (SR.size() != 3 || L.isGraphOutput(S) || L.storage(S).C4)
    return std::nullopt;
  const fb::OperatorT *MulIn = nullptr, *MulF = nullptr, *MulH = nullptr;
  int32_t GateI = -1, GateF = -1, GateO = -1;
  int64_t OffI = 0, OffF = 0, OffO = 0;
  for (const fb::OperatorT *Sl : SR) {
    int64_t Start = lastAxisStart(L, *Sl);
    int32_t Gate = Sl->outputs[0];
    const fb::OperatorT *M = Start < 0 ? nullptr : onlyReader(L, Gate);
    if (!binaryIs(M, fb::BinaryOp::MUL) ||
        L.tensor(Gate).shape.back() != C.Hidden)
      return std::nullopt;
    int32_t Other = otherOperand(*M, Gate);
    if (Other == U && onlyReader(L, U) == M) {
      MulIn = M, GateI = Gate, OffI = GateStart + Start;
    } else if (unaryIs(L.producer(Other), fb::UnaryOp::TANH)) {
      MulH = M, GateO = Gate, OffO = GateStart + Start;
    } else {
      MulF = M, GateF = Gate, OffF = GateStart + Start;
    }
    C.Absorbed.push_back(Sl);
  }
  if (!MulIn || !MulF || !MulH || GateI < 0 || GateF < 0 || GateO < 0)
    return std::nullopt;
  // c = f * c_prev + i * u, then y = o * tanh(c).
  const fb::OperatorT *AddC = onlyReader(L, MulIn->outputs[0]);
  if (!binaryIs(AddC, fb::BinaryOp::ADD) ||
      onlyReader(L, MulF->outputs[0]) != AddC ||
      otherOperand(*AddC, MulIn->outputs[0]) != MulF->outputs[0])
    return std::nullopt;
  C.CPrev = otherOperand(*MulF, GateF);
  C.C = AddC->outputs[0];
  const fb::OperatorT *TanhC = L.producer(otherOperand(*MulH, GateO));
  if (!TanhC || TanhC->inputs[0] != C.C ||
      onlyReader(L, TanhC->outputs[0]) != MulH || L.isGraphOutput(C.C) ||
      L.storage(C.C).C4 || L.tensor(C.CPrev).dtype != fb::DType::F32 ||
      L.storage(C.CPrev).C4)
    return std::nullopt;
  C.Y = MulH->outputs[0];
  int64_t PrevRows = int64_t(Storage{L.tensor(C.CPrev).shape, false}.elements()) /
                     C.Hidden;
  if (L.isGraphOutput(C.Y) || L.storage(C.Y).C4 ||
      (PrevRows != C.Rows && PrevRows != 1) ||
      L.tensor(C.CPrev).shape.back() != C.Hidden)
    return std::nullopt;
  C.CRow = PrevRows == 1 ? 0 : C.Hidden;
  C.IOff = OffI;
  C.FOff = OffF;
  C.OOff = OffO;
  C.Last = MulH;
  C.Absorbed.insert(C.Absorbed.end(),
                    {GateSlice, &Sigmoid, MulIn, MulF, AddC, TanhC});
  return C;
}

} // namespace

std::vector<LstmCell> findLstmCells(const Lowering &L) {
  std::vector<LstmCell> Cells;
  std::set<const fb::OperatorT *> Taken;
  for (const auto &Op : L.model().operators) {
    if (!unaryIs(Op.get(), fb::UnaryOp::SIGMOID))
      continue;
    std::optional<LstmCell> C = matchFrom(L, *Op);
    if (!C)
      continue;
    bool Free = !Taken.count(C->Last);
    for (const fb::OperatorT *O : C->Absorbed)
      Free = Free && !Taken.count(O);
    if (!Free)
      continue;
    Taken.insert(C->Absorbed.begin(), C->Absorbed.end());
    Taken.insert(C->Last);
    Cells.push_back(std::move(*C));
  }
  return Cells;
}

std::string lowerLstmCell(Lowering &L, const LstmCell &C) {
  BindingRef G = L.plainOf(C.G);
  BindingRef Prev = L.tensor(C.CPrev).buffer >= 0
                        ? L.bindFloats(L.floats(C.CPrev), C.CPrev)
                        : L.plainOf(C.CPrev);
  BindingRef Cell = L.bindNewOutput(C.C);
  PendingDispatch &D = L.dispatch("lstm_cell");
  auto Set = [&](uint32_t Id, int64_t V) { D.Spec[Id] = uint32_t(int32_t(V)); };
  Set(20, C.Rows);
  Set(21, C.Hidden);
  Set(22, C.Width);
  Set(23, C.IOff);
  Set(24, C.FOff);
  Set(25, C.OOff);
  Set(26, C.UOff);
  Set(27, C.CRow);
  D.Bindings = {G, Prev, Cell, L.bindTensor(C.Y)};
  flatGroups(D, uint64_t(C.Rows * C.Hidden));
  return "";
}

} // namespace kiln::vulkan
