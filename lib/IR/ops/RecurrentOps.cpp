// Recurrent layers with ONNX's semantics: lstm (gates i, o, f, c), gru
// (gates z, r, h) and rnn (h = tanh(x W + h R + b)). Operands follow ONNX's LSTM/GRU: x [seq, batch, input]
// (layout 0) or [batch, seq, input] (layout 1), w [dirs, G*H, input],
// r [dirs, G*H, H], b [dirs, 2*G*H] (input then recurrence biases), the
// optional per-batch sequence lengths, initial_h (and initial_c)
// [dirs, batch, H]. Results: y [seq, dirs, batch, H] (layout 1:
// [batch, seq, dirs, H]), y_h and (lstm) y_c [dirs, batch, H] (layout 1:
// [batch, dirs, H]). The default activations only; PyTorch's exports use
// nothing else.
#include "IR/Graph.h"
#include "IR/ShapeInference.h"
#include "IR/ops/OpBuilder.h"
#include "Support/Error.h"

namespace kiln {

namespace {

using Types = llvm::Expected<std::vector<TensorType>>;

/// Gates per direction: 4 for lstm, 3 for gru, 1 for rnn.
int64_t gatesOf(const Node &N) {
  return N.isOp("lstm") ? 4 : N.isOp("gru") ? 3 : 1;
}

llvm::Expected<int64_t> directionsOf(const Node &N) {
  const std::string &D = N.getString("direction");
  if (D == "forward" || D == "reverse")
    return 1;
  if (D == "bidirectional")
    return 2;
  return inputError("direction must be forward, reverse or bidirectional, "
                    "got '{0}'",
                    D);
}

/// A static dim that must equal Want (unknown dims pass).
llvm::Error expectDim(const TensorType &T, size_t Axis, int64_t Want,
                      llvm::StringRef What) {
  const Dim &D = T.Dims[Axis];
  if (D.isStatic() && D.size() != Want)
    return inputError("{0} {1} needs {2} along axis {3}", What, toString(T),
                      Want, Axis);
  return llvm::Error::success();
}

Types inferRecurrent(const Node &N) {
  const TensorType &X = N.operand(0)->type(), &W = N.operand(1)->type(),
                   &R = N.operand(2)->type();
  auto Dirs = directionsOf(N);
  if (!Dirs)
    return Dirs.takeError();
  int64_t H = N.getInt("hidden_size"), G = gatesOf(N);
  int64_t Layout = N.getInt("layout");
  if (H < 1)
    return inputError("hidden_size must be >= 1, got {0}", H);
  if (Layout != 0 && Layout != 1)
    return inputError("layout must be 0 or 1, got {0}", Layout);
  if (X.rank() != 3 || W.rank() != 3 || R.rank() != 3)
    return inputError("x, w and r must have rank 3, got {0}, {1} and {2}",
                      toString(X), toString(W), toString(R));
  if (!isFloatType(X.Elem) || W.Elem != X.Elem || R.Elem != X.Elem)
    return inputError("x, w and r must share a float type, got {0}, {1} and "
                      "{2}",
                      toString(X), toString(W), toString(R));
  if (auto E = expectDim(W, 0, *Dirs, "w")) return E;
  if (auto E = expectDim(W, 1, G * H, "w")) return E;
  if (auto E = expectDim(R, 0, *Dirs, "r")) return E;
  if (auto E = expectDim(R, 1, G * H, "r")) return E;
  if (auto E = expectDim(R, 2, H, "r")) return E;
  if (X.Dims[2].isStatic())
    if (auto E = expectDim(W, 2, X.Dims[2].size(), "w"))
      return E;
  if (const Value *B = N.numOperands() > 3 ? N.operand(3) : nullptr) {
    if (B->type().rank() != 2)
      return inputError("b must have rank 2, got {0}", toString(B->type()));
    if (auto E = expectDim(B->type(), 0, *Dirs, "b")) return E;
    if (auto E = expectDim(B->type(), 1, 2 * G * H, "b")) return E;
  }
  const Dim &Seq = X.Dims[size_t(Layout)], &Batch = X.Dims[size_t(1 - Layout)];
  Dim D(*Dirs), HD(H);
  for (unsigned I = 5; I < N.numOperands(); ++I)
    if (const Value *S = N.operand(I)) {
      const TensorType &T = S->type();
      if (T.rank() != 3)
        return inputError("initial states must have rank 3, got {0}",
                          toString(T));
      if (auto E = expectDim(T, size_t(Layout), *Dirs, "an initial state"))
        return E;
      if (auto E = expectDim(T, 2, H, "an initial state"))
        return E;
      if (X.Dims[size_t(1 - Layout)].isStatic())
        if (auto E = expectDim(T, size_t(1 - Layout),
                               X.Dims[size_t(1 - Layout)].size(),
                               "an initial state"))
          return E;
    }
  Shape Y = Layout == 0 ? Shape{Seq, D, Batch, HD} : Shape{Batch, Seq, D, HD};
  Shape State = Layout == 0 ? Shape{D, Batch, HD} : Shape{Batch, D, HD};
  std::vector<TensorType> Out = {TensorType(X.Elem, Y)};
  for (unsigned I = 1; I < N.numResults(); ++I)
    Out.push_back(TensorType(X.Elem, State));
  return Out;
}

OpBuilder recurrent(const char *Name, const char *Summary) {
  OpBuilder B(Name, "nn", Summary);
  B.operand("x").operand("w").operand("r").optional("b")
      .optional("sequence_lens").optional("initial_h");
  B.required("hidden_size", AttrKind::Int)
      .attr("direction", AttrKind::String, std::string("forward"),
            "forward, reverse or bidirectional")
      .attr("layout", AttrKind::Int, int64_t(0),
            "0: [seq, batch, ...], 1: [batch, seq, ...]");
  return B;
}

} // namespace

void registerRecurrentOps(OpRegistry &R) {
  recurrent("lstm", "LSTM layer (ONNX LSTM; gates i, o, f, c): y, y_h, y_c")
      .optional("initial_c")
      .results(1, 3)
      .infer(inferRecurrent).into(R);
  recurrent("gru", "GRU layer (ONNX GRU; gates z, r, h): y, y_h")
      .attr("linear_before_reset", AttrKind::Int, int64_t(0),
            "1: the reset gate multiplies (h R_h + Rb_h), as PyTorch's GRU")
      .results(1, 2)
      .infer(inferRecurrent).into(R);
  recurrent("rnn", "Elman RNN layer (ONNX RNN, tanh): y, y_h")
      .results(1, 2)
      .infer(inferRecurrent).into(R);
}

} // namespace kiln
