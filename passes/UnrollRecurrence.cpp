// unroll-recurrence: an lstm, gru or rnn over a static sequence becomes the
// ops every runtime target already runs: one linear for the input
// projection of all steps, then per step a linear of the hidden state, the
// gate activations over slices, and the elementwise state update. The
// steps' states are concatenated into y. Runs in the runtime targets'
// pipelines, which have no recurrent kernels; the interpreter runs the
// layer whole. Left alone: symbolic shapes, run-time sequence lengths, and
// sequences longer than MaxSteps (the unrolled graph would be too large).
// Its variant unroll-recurrence-keep-lstm leaves the LSTMs that a target's
// sequence-LSTM operator runs whole (isSequenceLstm: NNAPI's
// UNIDIRECTIONAL_SEQUENCE_LSTM from feature level 29) and unrolls the rest;
// unroll-recurrence-keep-lstm-gru leaves GRUs too (isSequenceGru: the CPU's
// float files, through oneDNN's LSTM and GRU primitives).
//
// ONNX's equations (gate rows of w/r in the IR's order, b = [Wb, Rb]):
//   lstm: g = x W + Wb + h R + Rb; i, o, f = sigmoid(g[0:3H]);
//         c' = tanh(g[3H:4H]); c = f*c + i*c'; h = o * tanh(c)
//   gru:  z, r = sigmoid(x W + Wb + h R + Rb)[0:2H];
//         n = tanh(x Wh + Wbh + r * (h Rh + Rbh))   (linear_before_reset)
//         n = tanh(x Wh + Wbh + (r*h) Rh + Rbh)      (otherwise)
//         h = n + z * (h - n)                        (= (1-z) n + z h)
//   rnn:  h = tanh(x W + Wb + h R + Rb)
#include "passes/UnrollRecurrence.h"
#include "passes/FusionSupport.h"
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>

namespace kiln {

namespace {

constexpr int64_t MaxSteps = 512;

/// Rows [Begin, End) of matrix D of a constant [dirs, rows, cols] (or
/// [dirs, cols] for a bias), as a new f32/f16 constant of its element type.
Tensor constantRows(const Tensor &T, int64_t D, int64_t Begin, int64_t End) {
  std::vector<int64_t> S;
  for (const Dim &X : T.type().Dims)
    S.push_back(X.size());
  int64_t Cols = S.size() == 3 ? S[2] : 1, Rows = S[1];
  size_t Elem = elementSize(T.type().Elem);
  size_t Bytes = size_t((End - Begin) * Cols) * Elem;
  std::vector<uint8_t> Out(Bytes);
  std::memcpy(Out.data(),
              T.buffer().data() + size_t((D * Rows + Begin) * Cols) * Elem,
              Bytes);
  Shape Dims = S.size() == 3 ? Shape{Dim(End - Begin), Dim(Cols)}
                             : Shape{Dim(End - Begin)};
  return Tensor(TensorType(T.type().Elem, Dims), Buffer::own(std::move(Out)));
}

/// A recurrent weight held as integer levels read through dequantize (a
/// dynamically quantized LSTM from PyTorch): constant [dirs, rows, cols]
/// levels, one scale (and zero point, if any, of the scale's shape) per
/// direction (axis 0) or per row (axis 1). The dequantize, or null.
const Node *integerWeight(const Value *V) {
  const Node *D = V ? V->producer() : nullptr;
  if (!D || !D->isOp("dequantize") || !D->operand(0)->constant() ||
      !D->operand(1)->constant() || D->result()->type().Elem != ElementType::F32 ||
      (D->numOperands() > 2 && D->operand(2) && !D->operand(2)->constant()))
    return nullptr;
  const TensorType &Q = D->operand(0)->type();
  const Tensor &S = *D->operand(1)->constant();
  int64_t Axis = D->getInt("axis");
  const Value *Z = D->numOperands() > 2 ? D->operand(2) : nullptr;
  if (Q.rank() != 3 || S.type().rank() != 1 || (Axis != 0 && Axis != 1) ||
      S.numElements() != Q.Dims[size_t(Axis)].size() ||
      (Z && Z->type().Dims != S.type().Dims))
    return nullptr;
  return D;
}

/// Elements [Begin, End) of a 1-D constant: 1-D, or rank 0 for one.
Tensor elementsOf(const Tensor &T, int64_t Begin, int64_t End, bool Scalar) {
  size_t Elem = elementSize(T.type().Elem);
  std::vector<uint8_t> Out(size_t(End - Begin) * Elem);
  std::memcpy(Out.data(), T.buffer().data() + size_t(Begin) * Elem, Out.size());
  Shape Dims = Scalar ? Shape{} : Shape{Dim(End - Begin)};
  return Tensor(TensorType(T.type().Elem, Dims), Buffer::own(std::move(Out)));
}

/// Builds the unrolled ops before the recurrent node; every helper returns
/// the new value or records the first error.
class Unroller {
public:
  Unroller(Graph &G, Node &N) : G(G), N(N) {}

  llvm::Error run(PassStats &Stats);

private:
  Graph &G;
  Node &N;
  int64_t Seq = 0, Batch = 0, H = 0, Dirs = 1;
  bool BatchFirst = false;

  NodeBuilder B{G, N};

  Value *op(llvm::StringRef Name, std::vector<Value *> Operands,
            AttrMap Attrs = {}) {
    return B.op(Name, std::move(Operands), std::move(Attrs));
  }
  Value *constant(Tensor T) { return B.constant(std::move(T)); }
  Value *ints(std::vector<int64_t> V) { return B.ints(std::move(V)); }
  Value *slice(Value *X, int64_t Axis, int64_t Begin, int64_t End) {
    return op("slice", {X, ints({Begin}), ints({End}), ints({Axis}), ints({1})});
  }
  Value *reshape(Value *X, std::vector<int64_t> Sizes) {
    return op("reshape", {X, ints(std::move(Sizes))});
  }
  Value *linear(Value *X, Value *W, Value *Bias) {
    return Bias ? op("linear", {X, W, Bias}) : op("linear", {X, W});
  }
  /// Columns [Begin, End) of a [batch, k] value.
  Value *cols(Value *X, int64_t Begin, int64_t End) {
    return slice(X, 1, Begin, End);
  }

  Value *weight(unsigned Operand, int64_t D, int64_t Begin, int64_t End) {
    const Value *V = N.numOperands() > Operand ? N.operand(Operand) : nullptr;
    if (!V)
      return nullptr;
    if (const Tensor *T = V->constant())
      return constant(constantRows(*T, D, Begin, End));
    // Integer levels: the rows' levels, read at direction D's scale or at
    // the rows' own (integerWeight), so the linears keep int8 weights.
    const Node *DQ = integerWeight(V);
    bool PerDirection = DQ->getInt("axis") == 0;
    auto Params = [&](const Value *P) -> Value * {
      if (!P)
        return nullptr;
      return constant(PerDirection ? elementsOf(*P->constant(), D, D + 1, true)
                                   : elementsOf(*P->constant(), Begin, End, false));
    };
    std::vector<Value *> Operands = {
        constant(constantRows(*DQ->operand(0)->constant(), D, Begin, End)),
        Params(DQ->operand(1))};
    if (Value *Zp = Params(DQ->numOperands() > 2 ? DQ->operand(2) : nullptr))
      Operands.push_back(Zp);
    return op("dequantize", std::move(Operands), {{"axis", int64_t(0)}});
  }
  /// Rows [Begin, End) of the recurrence bias Rb, or null without a bias.
  Value *recurrenceBias(int64_t D, int64_t Begin, int64_t End) {
    const Value *V = N.numOperands() > 3 ? N.operand(3) : nullptr;
    if (!V)
      return nullptr;
    int64_t Off = V->type().Dims[1].size() / 2;
    return constant(constantRows(*V->constant(), D, Off + Begin, Off + End));
  }
  /// The input projection's bias for direction D: Wb + Rb, except for the
  /// gru's h gate, whose Rb_h sits inside r * (...) and is applied with h's
  /// product; null without a bias.
  Value *inputBias(int64_t D, int64_t Rows, bool Gru) {
    const Value *V = N.numOperands() > 3 ? N.operand(3) : nullptr;
    if (!V)
      return nullptr;
    std::vector<double> B = *floatConstant(V);
    int64_t Half = V->type().Dims[1].size() / 2;
    std::vector<double> Sum;
    for (int64_t I = 0; I < Rows; ++I) {
      double Rb = Gru && I >= 2 * H ? 0.0 : B[size_t(D * 2 * Half + Half + I)];
      Sum.push_back(B[size_t(D * 2 * Half + I)] + Rb);
    }
    return constant(makeFloatTensor(V->type().Elem, {Rows}, Sum));
  }
  /// Initial state operand I for direction D as [batch, H], or null (zeros).
  Value *initialState(unsigned I, int64_t D) {
    Value *S = N.numOperands() > I ? N.operand(I) : nullptr;
    if (!S)
      return nullptr;
    return reshape(slice(S, BatchFirst ? 1 : 0, D, D + 1), {Batch, H});
  }

  /// Step T's slice of the projected input P, as [batch, k].
  Value *stepOf(Value *P, int64_t T, int64_t K) {
    return reshape(slice(P, BatchFirst ? 1 : 0, T, T + 1), {Batch, K});
  }
};

llvm::Error Unroller::run(PassStats &Stats) {
  const TensorType &XT = N.operand(0)->type();
  BatchFirst = N.getInt("layout") == 1;
  Seq = XT.Dims[BatchFirst ? 1 : 0].size();
  Batch = XT.Dims[BatchFirst ? 0 : 1].size();
  H = N.getInt("hidden_size");
  const std::string &Direction = N.getString("direction");
  Dirs = Direction == "bidirectional" ? 2 : 1;
  bool Lstm = N.isOp("lstm"), Gru = N.isOp("gru");
  int64_t Gates = Lstm ? 4 : Gru ? 3 : 1;
  bool BeforeReset = Gru && N.getInt("linear_before_reset") != 0;
  std::vector<Value *> YDirs, HDirs, CDirs;
  for (int64_t D = 0; D < Dirs; ++D) {
    bool Backward = Direction == "reverse" || D == 1;
    // The input projection of every step at once.
    Value *P = linear(N.operand(0), weight(1, D, 0, Gates * H),
                      inputBias(D, Gates * H, Gru));
    Value *Hs = initialState(5, D);
    Value *Cs = Lstm ? initialState(6, D) : nullptr;
    Value *RAll = weight(2, D, 0, Gates * H);
    Value *RZR = Gru ? weight(2, D, 0, 2 * H) : nullptr;
    Value *RH = Gru ? weight(2, D, 2 * H, 3 * H) : nullptr;
    Value *RbH = Gru ? recurrenceBias(D, 2 * H, 3 * H) : nullptr;
    std::vector<Value *> Steps(static_cast<size_t>(Seq));
    for (int64_t Step = 0; Step < Seq; ++Step) {
      int64_t T = Backward ? Seq - 1 - Step : Step;
      Value *X = stepOf(P, T, Gates * H);
      if (Lstm) {
        Value *G = Hs ? op("add", {X, linear(Hs, RAll, nullptr)}) : X;
        Value *Sig = op("sigmoid", {cols(G, 0, 3 * H)});
        Value *Cand = op("tanh", {cols(G, 3 * H, 4 * H)});
        Value *In = op("mul", {cols(Sig, 0, H), Cand});
        Cs = Cs ? op("add", {op("mul", {cols(Sig, 2 * H, 3 * H), Cs}), In}) : In;
        Hs = op("mul", {cols(Sig, H, 2 * H), op("tanh", {Cs})});
      } else if (Gru) {
        Value *ZR = cols(X, 0, 2 * H), *XH = cols(X, 2 * H, 3 * H);
        Value *HR = nullptr; // h R_h + Rb_h (linear_before_reset)
        if (Hs && BeforeReset) {
          Value *All = linear(Hs, RAll, nullptr);
          ZR = op("add", {ZR, cols(All, 0, 2 * H)});
          HR = cols(All, 2 * H, 3 * H);
          if (RbH)
            HR = op("add", {HR, RbH});
        } else if (Hs)
          ZR = op("add", {ZR, linear(Hs, RZR, nullptr)});
        ZR = op("sigmoid", {ZR});
        Value *Z = cols(ZR, 0, H), *R = cols(ZR, H, 2 * H);
        Value *Pre;
        if (!Hs) // h = 0: (r*h) R_h = 0, r * (0 R_h + Rb_h) = r * Rb_h
          Pre = RbH ? op("add", {XH, BeforeReset ? op("mul", {R, RbH}) : RbH})
                    : XH;
        else if (BeforeReset)
          Pre = op("add", {XH, op("mul", {R, HR})});
        else
          Pre = op("add", {XH, linear(op("mul", {R, Hs}), RH, RbH)});
        Value *Nv = op("tanh", {Pre});
        Hs = Hs ? op("add", {Nv, op("mul", {Z, op("sub", {Hs, Nv})})})
                : op("sub", {Nv, op("mul", {Z, Nv})});
      } else {
        Hs = op("tanh", {Hs ? op("add", {X, linear(Hs, RAll, nullptr)}) : X});
      }
      Steps[size_t(T)] = Hs;
    }
    if (llvm::Error E = B.takeError())
      return E;
    // y for this direction in time order: [seq, 1, batch, H] or
    // [batch, seq, 1, H].
    std::vector<Value *> Parts;
    for (Value *S : Steps)
      Parts.push_back(reshape(S, BatchFirst ? std::vector<int64_t>{Batch, 1, 1, H}
                                            : std::vector<int64_t>{1, 1, Batch, H}));
    YDirs.push_back(Parts.size() == 1 ? Parts[0]
                                      : op("concat", Parts, {{"axis", int64_t(BatchFirst ? 1 : 0)}}));
    auto State = [&](Value *V) {
      return reshape(V, BatchFirst ? std::vector<int64_t>{Batch, 1, H}
                                   : std::vector<int64_t>{1, Batch, H});
    };
    HDirs.push_back(State(Hs));
    if (Lstm)
      CDirs.push_back(State(Cs));
  }
  auto Join = [&](std::vector<Value *> V, int64_t Axis) {
    return V.size() == 1 ? V[0] : op("concat", V, {{"axis", Axis}});
  };
  std::vector<Value *> Results = {Join(YDirs, BatchFirst ? 2 : 1),
                                  Join(HDirs, BatchFirst ? 1 : 0)};
  if (Lstm)
    Results.push_back(Join(CDirs, BatchFirst ? 1 : 0));
  if (llvm::Error E = B.takeError())
    return E;
  for (unsigned I = 0; I < N.numResults(); ++I) {
    if (!isCompatible(N.result(I)->type(), Results[I]->type()))
      return internalError("unrolled {0} result {1} is {2}, not {3}", N.opName(),
                           I, toString(Results[I]->type()),
                           toString(N.result(I)->type()));
    replaceValue(G, N.result(I), Results[I]);
  }
  Stats.add(("unrolled-" + N.opName()).str());
  Stats.add("steps", Seq * Dirs);
  return llvm::Error::success();
}

bool isUnrollable(const Node &N) {
  if (!N.isOp("lstm") && !N.isOp("gru") && !N.isOp("rnn"))
    return false;
  const TensorType &X = N.operand(0)->type();
  if (!X.isStatic() || !isFloatType(X.Elem))
    return false;
  for (unsigned I : {1u, 2u, 3u})
    if (I < N.numOperands() && N.operand(I) && !floatConstant(N.operand(I)) &&
        (I == 3 || !integerWeight(N.operand(I))))
      return false;
  if (N.numOperands() > 4 && N.operand(4)) // run-time sequence lengths
    return false;
  for (unsigned I = 5; I < N.numOperands(); ++I)
    if (N.operand(I) && !N.operand(I)->type().isStatic())
      return false;
  int64_t Seq = X.Dims[N.getInt("layout") == 1 ? 1 : 0].size();
  return Seq >= 1 && Seq <= MaxSteps;
}

/// The recurrent layers a variant leaves whole.
enum class Keep { None, Lstm, LstmAndGru };

class UnrollRecurrence : public Pass {
public:
  explicit UnrollRecurrence(Keep Kept) : Kept(Kept) {}

  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (isUnrollable(N)) {
        if (Kept != Keep::None && isSequenceLstm(N))
          Stats.add("kept-lstm");
        else if (Kept == Keep::LstmAndGru && isSequenceGru(N))
          Stats.add("kept-gru");
        else
          Matches.push_back(&N);
      }
    for (Node *N : Matches) {
      if (llvm::Error E = Unroller(G, *N).run(Stats))
        return E;
      std::vector<Value *> Operands(N->operands().begin(), N->operands().end());
      G.erase(N);
      eraseUnusedConstants(G, Operands);
    }
    return !Matches.empty();
  }

private:
  Keep Kept;
};

} // namespace

namespace {

/// Whether V reaches a graph output through some chain of users (a value
/// read only by nodes dce would remove does not): a walk that visits each
/// value once.
bool reachesOutput(const Graph &G, const Value *V) {
  llvm::SmallPtrSet<const Value *, 32> Seen;
  llvm::SmallVector<const Value *, 32> Work = {V};
  while (!Work.empty()) {
    const Value *X = Work.pop_back_val();
    if (!Seen.insert(X).second)
      continue;
    if (G.isOutput(X))
      return true;
    for (const Use &U : X->uses())
      for (const Value *R : U.User->results())
        Work.push_back(R);
  }
  return false;
}

} // namespace

namespace {

/// A forward Op with a static f32 input, constant f32 weights and bias, no
/// run-time sequence lengths, and static f32 initial states: what kiln's
/// sequence operators run whole.
bool isForwardConstantRecurrent(const Node &N, llvm::StringRef Op) {
  if (!N.isOp(Op) || N.getString("direction") != "forward" ||
      N.numOperands() < 3)
    return false;
  const TensorType &X = N.operand(0)->type();
  if (!X.isStatic() || X.Elem != ElementType::F32)
    return false;
  for (unsigned I : {1u, 2u, 3u}) {
    const Value *V = I < N.numOperands() ? N.operand(I) : nullptr;
    if (!V ? I != 3
           : !isFloatConstant(V) || V->type().Elem != ElementType::F32)
      return false;
  }
  if (N.numOperands() > 4 && N.operand(4)) // run-time sequence lengths
    return false;
  for (unsigned I = 5; I < N.numOperands(); ++I)
    if (N.operand(I) && (!N.operand(I)->type().isStatic() ||
                         N.operand(I)->type().Elem != ElementType::F32))
      return false;
  return true;
}

} // namespace

bool isSequenceLstm(const Node &N) {
  if (!isForwardConstantRecurrent(N, "lstm"))
    return false;
  const Value *Yc = N.numResults() > 2 ? N.result(2) : nullptr;
  return !Yc || !reachesOutput(*N.graph(), Yc);
}

bool isSequenceGru(const Node &N) { return isForwardConstantRecurrent(N, "gru"); }

std::unique_ptr<Pass> createUnrollRecurrence() {
  return std::make_unique<UnrollRecurrence>(Keep::None);
}

std::unique_ptr<Pass> createUnrollRecurrenceKeepLstm() {
  return std::make_unique<UnrollRecurrence>(Keep::Lstm);
}

std::unique_ptr<Pass> createUnrollRecurrenceKeepLstmGru() {
  return std::make_unique<UnrollRecurrence>(Keep::LstmAndGru);
}

} // namespace kiln
