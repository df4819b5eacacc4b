// aten::lstm, aten::gru and aten::rnn_tanh (nn.LSTM / nn.GRU / nn.RNN) -> one
// IR lstm / gru / rnn per layer, all bidirectional-aware, in batch-first
// layout (layout 1), so that a layer's y [batch, seq, dirs, H] reshapes into
// the next layer's input. PyTorch's gate rows are reordered into ONNX's
// (LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h), and PyTorch's GRU is ONNX's
// linear_before_reset = 1. Dropout between layers only acts in training.
#include "frontends/torchscript/TsConverter.h"

#include <ATen/Functions.h>

namespace kiln::ts_import {

namespace {

struct RecurrentKind {
  const char *Op;
  int64_t Gates;
  std::vector<int64_t> OnnxOrder; // PyTorch chunk for each ONNX gate
  bool HasCell;
};

const RecurrentKind Lstm = {"lstm", 4, {0, 3, 1, 2}, true};
const RecurrentKind Gru = {"gru", 3, {1, 0, 2}, false};
const RecurrentKind Rnn = {"rnn", 1, {0}, false};

/// PyTorch's [G*H, ...] rows in ONNX's gate order.
at::Tensor reorderGates(const at::Tensor &T, const RecurrentKind &K) {
  std::vector<at::Tensor> Chunks = T.chunk(K.Gates, 0), Ordered;
  for (int64_t I : K.OnnxOrder)
    Ordered.push_back(Chunks[size_t(I)]);
  return at::cat(Ordered, 0);
}

llvm::Expected<Value *> transposed(NodeConverter &C, Value *V,
                                   std::vector<int64_t> Perm) {
  return C.emit("transpose", {V}, {{"perm", std::move(Perm)}});
}

llvm::Error convertRecurrent(NodeConverter &C, const RecurrentKind &K) {
  Value *X = C.tensor(0);
  // hx: a list [h0, c0] for lstm, one tensor for gru and rnn.
  std::vector<Value *> States;
  if (K.HasCell)
    for (const TsValue &V : C.getList(1))
      States.push_back(V.isTensor() ? V.T
                       : V.isConst() && V.C.isTensor()
                           ? C.constant(*toKilnTensor(V.C.toTensor()))
                           : nullptr);
  else
    States.push_back(C.tensor(1));
  std::vector<TsValue> Params = C.getList(2);
  bool HasBiases = C.getBool(3);
  int64_t Layers = C.getInt(4);
  bool Bidirectional = C.getBool(7), BatchFirst = C.getBool(8);
  if (llvm::Error E = C.takeError())
    return E;
  if (!X || X->type().rank() != 3)
    return C.fail("the input must have rank 3 (unbatched sequences are not "
                  "supported)");
  int64_t Dirs = Bidirectional ? 2 : 1, PerDir = HasBiases ? 4 : 2;
  if (int64_t(Params.size()) != Layers * Dirs * PerDir)
    return C.fail("{0} parameters for {1} layers of {2} directions", Params.size(),
                  Layers, Dirs);
  if (States.size() != (K.HasCell ? 2u : 1u) ||
      llvm::is_contained(States, nullptr))
    return C.fail("the initial state is not a tensor (or pair of tensors)");
  std::vector<at::Tensor> P;
  for (const TsValue &V : Params) {
    if (!V.isConst() || !V.C.isTensor() || V.C.toTensor().is_quantized())
      return C.fail("the weights must be float constants");
    P.push_back(V.C.toTensor().to(at::kFloat).contiguous());
  }
  // Batch-first throughout.
  if (!BatchFirst) {
    auto T = transposed(C, X, {1, 0, 2});
    if (!T)
      return T.takeError();
    X = *T;
  }
  int64_t H = P[1].size(1);
  std::vector<std::vector<Value *>> Finals(K.HasCell ? 2 : 1);
  for (int64_t L = 0; L < Layers; ++L) {
    std::vector<at::Tensor> W, R, B;
    for (int64_t D = 0; D < Dirs; ++D) {
      const at::Tensor *Q = &P[size_t((L * Dirs + D) * PerDir)];
      W.push_back(reorderGates(Q[0], K));
      R.push_back(reorderGates(Q[1], K));
      if (HasBiases)
        B.push_back(at::cat({reorderGates(Q[2], K), reorderGates(Q[3], K)}));
    }
    auto Const = [&](const at::Tensor &T) -> llvm::Expected<Value *> {
      auto KT = toKilnTensor(T.contiguous());
      if (!KT)
        return KT.takeError();
      return C.constant(std::move(*KT));
    };
    auto WV = Const(at::stack(W)), RV = Const(at::stack(R));
    if (!WV) return WV.takeError();
    if (!RV) return RV.takeError();
    Value *BV = nullptr;
    if (HasBiases) {
      auto V = Const(at::stack(B));
      if (!V)
        return V.takeError();
      BV = *V;
    }
    // This layer's initial states: [layers*dirs, batch, H] -> [batch, dirs, H].
    std::vector<Value *> Operands = {X, *WV, *RV, BV, nullptr};
    for (Value *S : States) {
      auto Rows = C.emit("slice", {S, C.constInts({L * Dirs}),
                                   C.constInts({(L + 1) * Dirs}),
                                   C.constInts({0}), C.constInts({1})});
      if (!Rows)
        return Rows.takeError();
      auto T = transposed(C, *Rows, {1, 0, 2});
      if (!T)
        return T.takeError();
      Operands.push_back(*T);
    }
    AttrMap A = {{"hidden_size", H},
                 {"direction", std::string(Bidirectional ? "bidirectional"
                                                         : "forward")},
                 {"layout", int64_t(1)}};
    if (K.Op == Gru.Op)
      A["linear_before_reset"] = int64_t(1);
    auto Layer = C.emitNode(K.Op, Operands, std::move(A), K.HasCell ? 3 : 2);
    if (!Layer)
      return Layer.takeError();
    auto Seq = C.staticDims((*Layer)->result(0));
    if (!Seq)
      return Seq.takeError();
    auto Y = C.emit("reshape", {(*Layer)->result(0),
                                C.constInts({(*Seq)[0], (*Seq)[1], Dirs * H})});
    if (!Y)
      return Y.takeError();
    X = *Y;
    for (size_t I = 0; I < Finals.size(); ++I) {
      auto T = transposed(C, (*Layer)->result(unsigned(I + 1)), {1, 0, 2});
      if (!T)
        return T.takeError();
      Finals[I].push_back(*T);
    }
  }
  if (!BatchFirst) {
    auto T = transposed(C, X, {1, 0, 2});
    if (!T)
      return T.takeError();
    X = *T;
  }
  C.setTensorOutput(0, X);
  for (size_t I = 0; I < Finals.size(); ++I) {
    Value *F = Finals[I][0];
    if (Finals[I].size() > 1) {
      auto Cat = C.emit("concat", Finals[I], {{"axis", int64_t(0)}});
      if (!Cat)
        return Cat.takeError();
      F = *Cat;
    }
    C.setTensorOutput(unsigned(I + 1), F);
  }
  return C.takeError();
}

llvm::Error convertLstm(NodeConverter &C) { return convertRecurrent(C, Lstm); }
llvm::Error convertGru(NodeConverter &C) { return convertRecurrent(C, Gru); }
llvm::Error convertRnnTanh(NodeConverter &C) { return convertRecurrent(C, Rnn); }

const OpConverter Table[] = {
    {"aten::lstm", convertLstm},
    {"aten::gru", convertGru},
    {"aten::rnn_tanh", convertRnnTanh},
};

} // namespace

llvm::ArrayRef<OpConverter> recurrentConverters() { return Table; }

} // namespace kiln::ts_import
