// aten::lstm, aten::gru and aten::rnn_tanh (nn.LSTM / nn.GRU / nn.RNN) -> one
// IR lstm / gru / rnn per layer, all bidirectional-aware, in batch-first
// layout (layout 1), so that a layer's y [batch, seq, dirs, H] reshapes into
// the next layer's input. PyTorch's gate rows are reordered into ONNX's
// (LSTM i,f,g,o -> i,o,f,c; GRU r,z,n -> z,r,h), and PyTorch's GRU is ONNX's
// linear_before_reset = 1. Dropout between layers only acts in training.
// aten::quantized_lstm (torch.ao.quantization.quantize_dynamic of an
// nn.LSTM) takes one CellParamsBase per layer and direction: its weights
// are read with libtorch's own __getstate__ and linear_unpack, and the
// layer's W and R are its int8 levels read through dequantize (one scale
// per direction, or per row), which unroll-recurrence keeps as int8
// weights of its linears: kiln's int8-dynamic form. fp16 cells, and
// per-channel weights of a bidirectional layer, are dequantized to f32,
// with a warning.
#include "frontends/torchscript/TsConverter.h"

#include "Support/Logging.h"

#include <ATen/Functions.h>

#include <utility>

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

/// One dynamically quantized layer-direction (a CellParamsBase) as
/// PyTorch's [w_ih, w_hh, b_ih, b_hh]: the weights qint8 (or f32 from fp16
/// cells), the biases f32.
llvm::Error cellParams(NodeConverter &C, const c10::IValue &Cell,
                       std::vector<at::Tensor> &P) {
  if (!Cell.isObject())
    return C.fail("the cell parameters are not a CellParamsBase");
  torch::jit::Function *GetState =
      Cell.toObjectRef().type()->findMethod("__getstate__");
  if (!GetState)
    return C.fail("the cell parameters cannot be read (no __getstate__)");
  torch::jit::Stack S{Cell};
  std::string Kind;
  std::vector<c10::IValue> Packed;
  try {
    GetState->run(S);
    // (kind, [b_ih, b_hh], doubles, longs, [packed w_ih, packed w_hh]);
    // the packed linears carry the biases the cell adds.
    const auto &State = S.back().toTupleRef().elements();
    Kind = State.at(0).toStringRef();
    for (const c10::IValue &W : State.at(4).toListRef())
      Packed.push_back(W);
  } catch (const c10::Error &E) {
    return C.fail("the cell parameters cannot be read: {0}", E.what_without_backtrace());
  } catch (const std::exception &E) {
    return C.fail("the cell parameters cannot be read: {0}", E.what());
  }
  const char *Unpack = Kind == "quantized_dynamic"        ? "quantized::linear_unpack"
                       : Kind == "quantized_dynamic_fp16" ? "quantized::linear_unpack_fp16"
                                                          : nullptr;
  if (!Unpack)
    return C.fail("'{0}' cell parameters are not supported (dynamically "
                  "quantized int8 and fp16 are)", Kind);
  if (Packed.size() != 2)
    return C.fail("'{0}' cell parameters hold {1} packed weights, not 2", Kind,
                  Packed.size());
  // The biases PyTorch's dynamic cell adds are the ones packed with each
  // linear (apply_dynamic), absent ones zero.
  std::vector<at::Tensor> Weights, PackedBiases;
  for (const c10::IValue &W : Packed) {
    auto R = callTorchOp(C, Unpack, {W});
    if (!R)
      return R.takeError();
    try {
      at::Tensor T = (*R)[0].toTensor();
      Weights.push_back(T.is_quantized() ? T : T.to(at::kFloat).contiguous());
      PackedBiases.push_back((*R)[1].isNone()
                                 ? at::zeros({T.size(0)}, at::kFloat)
                                 : (*R)[1].toTensor().to(at::kFloat).contiguous());
    } catch (const c10::Error &E) {
      return C.fail("the cell parameters cannot be read: {0}",
                    E.what_without_backtrace());
    }
  }
  P.insert(P.end(), Weights.begin(), Weights.end());
  P.insert(P.end(), PackedBiases.begin(), PackedBiases.end());
  return llvm::Error::success();
}

/// One layer's dynamically quantized weights (one per direction, PyTorch's
/// gate order) as int8 levels [dirs, G*H, cols] in ONNX's gate order read
/// through dequantize: per tensor, one scale per direction (axis 0); per
/// channel (one direction), one per row (axis 1). Null where neither fits.
llvm::Expected<Value *> quantizedWeights(NodeConverter &C,
                                         const std::vector<at::Tensor> &Raw,
                                         const RecurrentKind &K) {
  bool PerTensor = llvm::all_of(Raw, [](const at::Tensor &T) {
    return T.qscheme() == at::kPerTensorAffine;
  });
  bool PerRow = Raw.size() == 1 && Raw[0].qscheme() == at::kPerChannelAffine &&
                Raw[0].q_per_channel_axis() == 0;
  if (!PerTensor && !PerRow)
    return nullptr;
  std::vector<at::Tensor> Levels;
  for (const at::Tensor &T : Raw)
    Levels.push_back(reorderGates(T.int_repr(), K));
  at::Tensor Scales, Zps;
  if (PerTensor) {
    std::vector<float> S;
    std::vector<int64_t> Z;
    for (const at::Tensor &T : Raw) {
      S.push_back(float(T.q_scale()));
      Z.push_back(T.q_zero_point());
    }
    Scales = at::tensor(S);
    Zps = at::tensor(Z);
  } else {
    Scales = reorderGates(Raw[0].q_per_channel_scales(), K);
    Zps = reorderGates(Raw[0].q_per_channel_zero_points(), K);
  }
  auto L = toKilnTensor(at::stack(Levels).contiguous());
  auto S = toKilnTensor(Scales.to(at::kFloat).contiguous());
  auto Z = toKilnTensor(Zps.to(Levels[0].scalar_type()).contiguous());
  if (!L)
    return L.takeError();
  if (!S)
    return S.takeError();
  if (!Z)
    return Z.takeError();
  return C.emit("dequantize",
                {C.constant(std::move(*L)), C.constant(std::move(*S)),
                 C.constant(std::move(*Z))},
                {{"axis", int64_t(PerTensor ? 0 : 1)}});
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
  // aten::quantized_lstm: one CellParamsBase per layer and direction.
  bool Cells = !Params.empty() && Params[0].isConst() && Params[0].C.isObject();
  if (Cells)
    PerDir = 4;
  if (int64_t(Params.size()) != Layers * Dirs * (Cells ? 1 : PerDir))
    return C.fail("{0} parameters for {1} layers of {2} directions", Params.size(),
                  Layers, Dirs);
  if (States.size() != (K.HasCell ? 2u : 1u) ||
      llvm::is_contained(States, nullptr))
    return C.fail("the initial state is not a tensor (or pair of tensors)");
  std::vector<at::Tensor> P;
  for (const TsValue &V : Params) {
    if (Cells) {
      if (!V.isConst())
        return C.fail("the cell parameters must be constants");
      if (llvm::Error E = cellParams(C, V.C, P))
        return E;
      continue;
    }
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
      W.push_back(Q[0]);
      R.push_back(Q[1]);
      if (PerDir == 4)
        B.push_back(at::cat({reorderGates(Q[2], K), reorderGates(Q[3], K)}));
    }
    auto Const = [&](const at::Tensor &T) -> llvm::Expected<Value *> {
      auto KT = toKilnTensor(T.contiguous());
      if (!KT)
        return KT.takeError();
      return C.constant(std::move(*KT));
    };
    // W and R: f32 constants, or int8 levels read through dequantize.
    bool Warned = false;
    auto Weights = [&](const std::vector<at::Tensor> &Raw) -> llvm::Expected<Value *> {
      bool Quantized = llvm::all_of(Raw, [](const at::Tensor &T) { return T.is_quantized(); });
      if (Quantized) {
        auto V = quantizedWeights(C, Raw, K);
        if (!V || *V)
          return V;
      }
      if (Cells && !std::exchange(Warned, true))
        log().warn("{0}: layer {1}'s weights are dequantized (exactly) to f32: "
                   "kiln keeps int8 recurrent weights per tensor, or per row "
                   "in one direction",
                   C.context(), L);
      std::vector<at::Tensor> F;
      for (const at::Tensor &T : Raw)
        F.push_back(reorderGates(T.is_quantized() ? T.dequantize() : T, K));
      return Const(at::stack(F));
    };
    auto WR = [&]() -> llvm::Expected<std::pair<Value *, Value *>> {
      try {
        auto WV = Weights(W);
        if (!WV)
          return WV.takeError();
        auto RV = Weights(R);
        if (!RV)
          return RV.takeError();
        return std::make_pair(*WV, *RV);
      } catch (const c10::Error &E) {
        return C.fail("layer {0}'s weights cannot be read: {1}", L,
                      E.what_without_backtrace());
      }
    }();
    if (!WR)
      return WR.takeError();
    Value *BV = nullptr;
    if (PerDir == 4) {
      auto V = Const(at::stack(B));
      if (!V)
        return V.takeError();
      BV = *V;
    }
    // This layer's initial states: [layers*dirs, batch, H] -> [batch, dirs, H].
    std::vector<Value *> Operands = {X, WR->first, WR->second, BV, nullptr};
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
    {"aten::quantized_lstm", convertLstm},
    {"aten::gru", convertGru},
    {"aten::rnn_tanh", convertRnnTanh},
};

} // namespace

llvm::ArrayRef<OpConverter> recurrentConverters() { return Table; }

} // namespace kiln::ts_import
