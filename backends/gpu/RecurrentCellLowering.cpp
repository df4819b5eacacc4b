// An unrolled LSTM or GRU step's cell as one dispatch
// (kernels/lstm_cell.comp, gru_cell.comp).
//
// LSTM: unroll-recurrence writes each step as
//   s = sigmoid(g[:, a:a+3H]),  u = tanh(g[:, b:b+H]),
//   c = s_f * c_prev + s_i * u,  y = s_o * tanh(c)
// (s_i, s_f, s_o: slices of s; ONNX's gate order puts them at 0, 2H and H,
// PyTorch's differs, so the offsets are read from the slices). The eleven
// operators become one dispatch at the last one (y's MUL), which writes c
// too: the next step reads it. Every other tensor inside the step is read
// only by the next operator of the step; a step that differs (peepholes, a
// clip, another reader) is lowered operator by operator.
//
// GRU (linear_before_reset, PyTorch's form):
//   zr = sigmoid(zr_pre), z = zr[:, a:a+H], r = zr[:, b:b+H],
//   n = tanh(xh + r * hr), y = n + z * (h_prev - n)
// where xh is the input's candidate part and hr = h R_h + Rb_h. Its eight
// operators become one dispatch at y's ADD.
#include "backends/gpu/FusionMatching.h"

#include <climits>
#include <cmath>
#include <optional>
#include <set>

namespace kiln::vulkan {

namespace {

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

/// X's row stride as an operand read per row of an output of shape Out
/// (rows of Hidden): Hidden when X has Out's shape, 0 when it is one row of
/// Hidden that broadcasts to it; -1 otherwise, or when X is not f32 PLAIN.
int64_t rowStride(const Lowering &L, int32_t X, const std::vector<int64_t> &Out) {
  const fb::TensorT &T = L.tensor(X);
  int64_t Hidden = Out.empty() ? 0 : Out.back();
  if (T.dtype != fb::DType::F32 || T.shape.empty() || Hidden <= 0 ||
      (T.buffer < 0 && L.storage(X).C4))
    return -1;
  if (T.shape == Out)
    return Hidden;
  bool OneRow = T.shape.size() <= Out.size() && T.shape.back() == Hidden &&
                int64_t(Storage{T.shape, false}.elements()) == Hidden;
  return OneRow ? 0 : -1;
}

/// Whether every reader of T other than Except comes after operator Last
/// in graph order (T is written by Last's dispatch).
bool readAfter(const Lowering &L, int32_t T, const fb::OperatorT *Except,
               const fb::OperatorT *Last) {
  const auto &Ops = L.model().operators;
  size_t At = 0;
  while (At < Ops.size() && Ops[At].get() != Last)
    ++At;
  for (const fb::OperatorT *R : L.readers(T)) {
    if (R == Except)
      continue;
    size_t I = 0;
    while (I < Ops.size() && Ops[I].get() != R)
      ++I;
    if (I <= At)
      return false;
  }
  return true;
}

std::optional<LstmCell> matchLstm(const Lowering &L,
                                  const fb::OperatorT &Sigmoid) {
  LstmCell C;
  int32_t S = Sigmoid.outputs[0];
  const fb::OperatorT *GateSlice = L.producer(Sigmoid.inputs[0]);
  if (!GateSlice || soleReader(L, Sigmoid.inputs[0]) != &Sigmoid)
    return std::nullopt;
  int64_t GateStart = lastAxisStart(L, *GateSlice);
  C.G = GateSlice->inputs[0];
  const std::vector<int64_t> &GD = L.tensor(C.G).shape;
  // g computed by an operator: a graph input read only by slices would get
  // no fp16 copy in an fp16 file (its gathers convert it), and the kernel
  // reads it as fp16.
  if (GateStart < 0 || GD.empty() || L.tensor(C.G).buffer >= 0 ||
      !L.producer(C.G) || L.storage(C.G).C4 ||
      L.tensor(C.G).dtype != fb::DType::F32 ||
      int64_t(Storage{GD, false}.elements()) > INT32_MAX)
    return std::nullopt;
  int64_t Width = GD.back(), Three = L.tensor(S).shape.back();
  if (Three <= 0 || Three % 3 != 0)
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
    const fb::OperatorT *T = Start < 0 ? nullptr : soleReader(L, R->outputs[0]);
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
    const fb::OperatorT *M = Start < 0 ? nullptr : soleReader(L, Gate);
    if (!binaryIs(M, fb::BinaryOp::MUL) ||
        L.tensor(Gate).shape.back() != C.Hidden)
      return std::nullopt;
    int32_t Other = otherOperand(*M, Gate);
    if (Other == U && soleReader(L, U) == M) {
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
  const fb::OperatorT *AddC = soleReader(L, MulIn->outputs[0]);
  if (!binaryIs(AddC, fb::BinaryOp::ADD) ||
      soleReader(L, MulF->outputs[0]) != AddC ||
      otherOperand(*AddC, MulIn->outputs[0]) != MulF->outputs[0])
    return std::nullopt;
  C.CPrev = otherOperand(*MulF, GateF);
  C.C = AddC->outputs[0];
  const fb::OperatorT *TanhC = L.producer(otherOperand(*MulH, GateO));
  if (!TanhC || TanhC->inputs[0] != C.C ||
      soleReader(L, TanhC->outputs[0]) != MulH || L.isGraphOutput(C.C) ||
      L.storage(C.C).C4 || L.tensor(C.CPrev).dtype != fb::DType::F32 ||
      L.storage(C.CPrev).C4)
    return std::nullopt;
  C.Y = MulH->outputs[0];
  // c and y have the gates' shape (no broadcast grows them), c_prev that
  // shape or one row; c's other readers (the next step) come after y.
  const std::vector<int64_t> &Gate = L.tensor(GateI).shape;
  C.CRow = rowStride(L, C.CPrev, Gate);
  if (L.isGraphOutput(C.Y) || L.storage(C.Y).C4 || C.CRow < 0 ||
      L.tensor(C.C).shape != Gate || L.tensor(C.Y).shape != Gate ||
      int64_t(Storage{Gate, false}.elements()) != C.Rows * C.Hidden ||
      !readAfter(L, C.C, TanhC, MulH))
    return std::nullopt;
  C.IOff = OffI;
  C.FOff = OffF;
  C.OOff = OffO;
  C.Last = MulH;
  C.Absorbed.insert(C.Absorbed.end(),
                    {GateSlice, &Sigmoid, MulIn, MulF, AddC, TanhC});
  return C;
}

std::optional<GruCell> matchGru(const Lowering &L,
                                const fb::OperatorT &Sigmoid) {
  GruCell C;
  C.ZR = Sigmoid.inputs[0];
  int32_t S = Sigmoid.outputs[0];
  const std::vector<int64_t> &ZD = L.tensor(C.ZR).shape;
  if (ZD.empty() || ZD.back() % 2 || L.tensor(C.ZR).buffer >= 0 ||
      L.storage(C.ZR).C4 || L.readers(C.ZR).size() != 1 ||
      L.isGraphOutput(C.ZR) || L.isGraphOutput(S) || L.storage(S).C4)
    return std::nullopt;
  C.Width = ZD.back();
  C.Hidden = C.Width / 2;
  if (C.Hidden <= 0 || int64_t(Storage{ZD, false}.elements()) > INT32_MAX)
    return std::nullopt;
  C.Rows = int64_t(Storage{ZD, false}.elements()) / C.Width;
  const auto &SR = L.readers(S);
  if (SR.size() != 2)
    return std::nullopt;
  // r's slice goes into r * hr, z's into z * (h_prev - n).
  const fb::OperatorT *MulR = nullptr, *MulZ = nullptr;
  int32_t R = -1, Z = -1;
  for (const fb::OperatorT *Sl : SR) {
    int64_t Start = lastAxisStart(L, *Sl);
    const fb::OperatorT *M = Start < 0 ? nullptr : soleReader(L, Sl->outputs[0]);
    if (!binaryIs(M, fb::BinaryOp::MUL) ||
        L.tensor(Sl->outputs[0]).shape.back() != C.Hidden)
      return std::nullopt;
    int32_t Other = otherOperand(*M, Sl->outputs[0]);
    if (binaryIs(L.producer(Other), fb::BinaryOp::SUB) &&
        soleReader(L, Other) == M) {
      MulZ = M, Z = Sl->outputs[0], C.ZOff = Start;
    } else {
      MulR = M, R = Sl->outputs[0], C.ROff = Start, C.HR = Other;
    }
    C.Absorbed.push_back(Sl);
  }
  if (!MulR || !MulZ || R < 0 || Z < 0)
    return std::nullopt;
  // n = tanh(xh + r * hr).
  const fb::OperatorT *Pre = soleReader(L, MulR->outputs[0]);
  if (!binaryIs(Pre, fb::BinaryOp::ADD))
    return std::nullopt;
  C.XH = otherOperand(*Pre, MulR->outputs[0]);
  const fb::OperatorT *Tanh = soleReader(L, Pre->outputs[0]);
  if (C.XH < 0 || !unaryIs(Tanh, fb::UnaryOp::TANH))
    return std::nullopt;
  int32_t N = Tanh->outputs[0];
  // y = n + z * (h_prev - n): n's readers are the SUB and y's ADD.
  const fb::OperatorT *Sub = L.producer(otherOperand(*MulZ, Z));
  const fb::OperatorT *Add = soleReader(L, MulZ->outputs[0]);
  if (!Sub || Sub->inputs[1] != N || L.readers(N).size() != 2 ||
      L.isGraphOutput(N) || !binaryIs(Add, fb::BinaryOp::ADD) ||
      otherOperand(*Add, MulZ->outputs[0]) != N)
    return std::nullopt;
  C.HPrev = Sub->inputs[0];
  C.Y = Add->outputs[0];
  // y has the gates' shape; xh, hr and h_prev that shape or one row.
  const std::vector<int64_t> &Gate = L.tensor(Z).shape;
  C.XHRow = rowStride(L, C.XH, Gate);
  C.HRRow = rowStride(L, C.HR, Gate);
  C.HRow = rowStride(L, C.HPrev, Gate);
  if (C.XHRow < 0 || C.HRRow < 0 || C.HRow < 0 || L.isGraphOutput(C.Y) ||
      L.storage(C.Y).C4 || L.tensor(C.Y).dtype != fb::DType::F32 ||
      L.tensor(C.Y).shape != Gate ||
      int64_t(Storage{Gate, false}.elements()) != C.Rows * C.Hidden)
    return std::nullopt;
  C.Last = Add;
  C.Absorbed.insert(C.Absorbed.end(), {&Sigmoid, MulR, Pre, Tanh, Sub, MulZ});
  return C;
}

/// The cells Match finds from each SIGMOID, each operator in one at most.
template <typename Cell, typename MatchFn>
std::vector<Cell> findCells(const Lowering &L, MatchFn Match) {
  std::vector<Cell> Cells;
  std::set<const fb::OperatorT *> Taken;
  for (const auto &Op : L.model().operators) {
    if (!unaryIs(Op.get(), fb::UnaryOp::SIGMOID))
      continue;
    std::optional<Cell> C = Match(L, *Op);
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

} // namespace

std::vector<LstmCell> findLstmCells(const Lowering &L) {
  return findCells<LstmCell>(L, matchLstm);
}

std::vector<GruCell> findGruCells(const Lowering &L) {
  return findCells<GruCell>(L, matchGru);
}

std::string lowerLstmCell(Lowering &L, const LstmCell &C) {
  BindingRef G = L.plainOf(C.G);
  BindingRef Prev = bindOperand(L, C.CPrev);
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

std::string lowerGruCell(Lowering &L, const GruCell &C) {
  BindingRef ZR = L.plainOf(C.ZR);
  BindingRef XH = bindOperand(L, C.XH), HR = bindOperand(L, C.HR);
  BindingRef HPrev = bindOperand(L, C.HPrev);
  PendingDispatch &D = L.dispatch("gru_cell");
  auto Set = [&](uint32_t Id, int64_t V) { D.Spec[Id] = uint32_t(int32_t(V)); };
  Set(20, C.Rows);
  Set(21, C.Hidden);
  Set(22, C.Width);
  Set(23, C.ZOff);
  Set(24, C.ROff);
  Set(25, C.XHRow);
  Set(26, C.HRRow);
  Set(27, C.HRow);
  D.Bindings = {ZR, XH, HR, HPrev, L.bindTensor(C.Y)};
  flatGroups(D, uint64_t(C.Rows * C.Hidden));
  return "";
}

} // namespace kiln::vulkan
