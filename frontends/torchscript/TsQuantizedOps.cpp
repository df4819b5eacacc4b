// Quantized TorchScript (eager-mode and FX post-training quantization, QAT
// after convert) -> the QDQ form QDQ ONNX has. A quantized tensor is an IR
// value of u8 (quint8) or i8 (qint8) whose type carries its scale and zero
// point; each quantized:: op becomes dequantize -> float op -> quantize with
// the op's output parameters, its weight unpacked from the packed
// parameters (libtorch's own quantized::*_unpack ops) as an integer
// constant read through dequantize, its bias float. adopt-imported-qdq then
// makes that kiln's int8 form, keeping the model's scales. Dynamically
// quantized linears become kiln's int8-dynamic form.
#include "frontends/torchscript/QnnpackParity.h"
#include "frontends/torchscript/TsConverter.h"

#include <ATen/core/dispatch/Dispatcher.h>

namespace kiln::ts_import {

bool isQuantizedValue(const Value *V) {
  return V && V->type().Quant && !V->type().Quant->isPerAxis() &&
         (V->type().Elem == ElementType::U8 || V->type().Elem == ElementType::I8);
}

namespace {

/// quantize(X) to E with one scale and zero point, carried by its type.
llvm::Expected<Value *> quantizeTo(NodeConverter &C, Value *X, double Scale,
                                   int64_t Zp, ElementType E) {
  auto Q = C.emit("quantize", {X, C.constScalar(ElementType::F32, Scale),
                               C.constScalar(E, double(Zp))});
  if (!Q)
    return Q;
  TensorType T = (*Q)->type();
  QuantParams P;
  P.Scales = {float(Scale)};
  P.ZeroPoints = {Zp};
  T.Quant = P;
  (*Q)->setType(T);
  return Q;
}

llvm::Expected<Value *> dequantized(NodeConverter &C, Value *Q) {
  if (!isQuantizedValue(Q))
    return C.fail("expects a quantized tensor (quint8 or qint8, per tensor), "
                  "got {0}",
                  Q ? toString(Q->type()) : std::string("nothing"));
  const QuantParams &P = *Q->type().Quant;
  return C.emit("dequantize",
                {Q, C.constScalar(ElementType::F32, P.Scales[0]),
                 C.constScalar(Q->type().Elem, double(P.ZeroPoints[0]))});
}

/// The quantized operand I, dequantized.
llvm::Expected<Value *> dequantizedOperand(NodeConverter &C, unsigned I) {
  Value *V = C.tensor(I);
  if (!V)
    return C.takeError();
  return dequantized(C, V);
}

/// The result in C's output 0 (float), with an optional fused ReLU, then
/// quantized to the scale and zero point of operands ScaleAt, ScaleAt + 1,
/// in the element type of Like.
llvm::Error quantizeResult(NodeConverter &C, bool Relu, unsigned ScaleAt,
                           const Value *Like) {
  Value *Y = C.output(0).T;
  if (Relu) {
    auto R = C.emit("relu", {Y});
    if (!R)
      return R.takeError();
    Y = *R;
  }
  double Scale = C.getDouble(ScaleAt);
  int64_t Zp = int64_t(C.getDouble(ScaleAt + 1));
  return finish(C, quantizeTo(C, Y, Scale, Zp, Like->type().Elem));
}

/// The integer weight W (qint8/quint8, per tensor or per channel) as a
/// constant read through dequantize.
llvm::Expected<Value *> weightValue(NodeConverter &C, const at::Tensor &W) {
  if (!W.is_quantized())
    return C.fail("the packed weight is not quantized");
  auto Levels = toKilnTensor(W.int_repr().contiguous());
  if (!Levels)
    return Levels.takeError();
  ElementType E = Levels->type().Elem;
  Value *Q = C.constant(std::move(*Levels));
  if (W.qscheme() == at::kPerTensorAffine)
    return C.emit("dequantize", {Q, C.constScalar(ElementType::F32, W.q_scale()),
                                 C.constScalar(E, double(W.q_zero_point()))});
  // (kPerChannelAffineFloatQParams has fractional zero points: no integer
  // scheme holds them.)
  if (W.qscheme() != at::kPerChannelAffine)
    return C.fail("weights quantized with {0} are not supported",
                  c10::toString(W.qscheme()));
  auto Scales = toKilnTensor(W.q_per_channel_scales().to(at::kFloat).contiguous());
  auto Zps = toKilnTensor(
      W.q_per_channel_zero_points().to(toScalarType(E)).contiguous());
  if (!Scales)
    return Scales.takeError();
  if (!Zps)
    return Zps.takeError();
  return C.emit("dequantize",
                {Q, C.constant(std::move(*Scales)), C.constant(std::move(*Zps))},
                {{"axis", int64_t(W.q_per_channel_axis())}});
}

/// The float bias (or None) a packed-parameter unpack returned.
llvm::Expected<Value *> biasValue(NodeConverter &C, const c10::IValue &B) {
  if (B.isNone())
    return nullptr;
  auto T = toKilnTensor(B.toTensor().to(at::kFloat).contiguous());
  if (!T)
    return T.takeError();
  return C.constant(std::move(*T));
}

/// The input and output scales of a static quantized conv or linear, for
/// requantization parity with PyTorch (QnnpackParity.h).
struct RequantScales {
  float X = 0, Y = 0;
};

/// W's scales, one per output channel (axis 0), as doubles.
std::vector<double> channelScales(const at::Tensor &W) {
  if (W.qscheme() == at::kPerTensorAffine)
    return std::vector<double>(size_t(W.size(0)), W.q_scale());
  at::Tensor S = W.q_per_channel_scales().to(at::kDouble).contiguous();
  return std::vector<double>(S.data_ptr<double>(), S.data_ptr<double>() + S.numel());
}

/// The weight and bias of a static layer made to requantize as PyTorch's
/// kernels do: the levels read through dequantize at the parity scales
/// (per channel, axis 0), the bias as the int32 levels PyTorch quantizes it
/// to, read at x_s * w'[c].
llvm::Error parityWeights(NodeConverter &C, const at::Tensor &W,
                          const c10::IValue &Bias, RequantScales S, Value *&WV,
                          Value *&BV) {
  if (W.qscheme() != at::kPerTensorAffine &&
      (W.qscheme() != at::kPerChannelAffine || W.q_per_channel_axis() != 0))
    return C.fail("weights quantized with {0} are not supported",
                  c10::toString(W.qscheme()));
  std::vector<double> WS = channelScales(W);
  auto Levels = toKilnTensor(W.int_repr().contiguous());
  if (!Levels)
    return Levels.takeError();
  ElementType E = Levels->type().Elem;
  int64_t OC = int64_t(WS.size());
  std::vector<float> Parity(WS.size());
  for (size_t I = 0; I < WS.size(); ++I)
    Parity[I] = weightScaleForParity(float(WS[I]), S.X, S.Y);
  std::vector<int64_t> Zps(WS.size(), W.qscheme() == at::kPerTensorAffine ? W.q_zero_point() : 0);
  if (W.qscheme() == at::kPerChannelAffine) {
    at::Tensor Z = W.q_per_channel_zero_points().to(at::kLong).contiguous();
    std::copy(Z.data_ptr<int64_t>(), Z.data_ptr<int64_t>() + Z.numel(), Zps.begin());
  }
  std::vector<uint8_t> ZBytes(WS.size());
  for (size_t I = 0; I < WS.size(); ++I)
    ZBytes[I] = uint8_t(int8_t(Zps[I])); // E is one byte (qint8 or quint8)
  auto W2 = C.emit("dequantize",
                   {C.constant(std::move(*Levels)),
                    C.constant(Tensor::fromValues<float>(ElementType::F32, {OC}, Parity)),
                    C.constant(Tensor::fromValues<uint8_t>(E, {OC}, ZBytes))},
                   {{"axis", int64_t(0)}});
  if (!W2)
    return W2.takeError();
  WV = *W2;
  BV = nullptr;
  if (Bias.isNone())
    return llvm::Error::success();
  at::Tensor B = Bias.toTensor().to(at::kFloat).contiguous();
  if (B.numel() != OC)
    return C.fail("the bias has {0} values for {1} output channels", B.numel(), OC);
  std::vector<int32_t> BL(WS.size());
  std::vector<float> BS(WS.size());
  for (size_t I = 0; I < WS.size(); ++I) {
    BL[I] = pytorchBiasLevel(B.data_ptr<float>()[I], WS[I], double(S.X));
    BS[I] = S.X * Parity[I];
  }
  auto B2 = C.emit("dequantize",
                   {C.constant(Tensor::fromValues<int32_t>(ElementType::I32, {OC}, BL)),
                    C.constant(Tensor::fromValues<float>(ElementType::F32, {OC}, BS)),
                    C.constant(Tensor::fromValues<int32_t>(ElementType::I32, {OC},
                                                           std::vector<int32_t>(WS.size(), 0)))},
                   {{"axis", int64_t(0)}});
  if (!B2)
    return B2.takeError();
  BV = *B2;
  return llvm::Error::success();
}

/// The weight (integer levels read through dequantize) and the float bias
/// (null for None) that libtorch's UnpackOp gives for Packed; with Scales
/// (a static layer whose weight's first axis is its output channels), made
/// to requantize as PyTorch does (parityWeights).
llvm::Error unpackWeights(NodeConverter &C, const char *UnpackOp,
                          const c10::IValue &Packed, Value *&W, Value *&B,
                          const RequantScales *Scales = nullptr) {
  auto Unpacked = callTorchOp(C, UnpackOp, {Packed});
  if (!Unpacked)
    return Unpacked.takeError();
  try {
    if (Scales && (*Unpacked)[0].toTensor().is_quantized())
      return parityWeights(C, (*Unpacked)[0].toTensor(), (*Unpacked)[1], *Scales, W, B);
    auto WV = weightValue(C, (*Unpacked)[0].toTensor());
    if (!WV)
      return WV.takeError();
    auto BV = biasValue(C, (*Unpacked)[1]);
    if (!BV)
      return BV.takeError();
    W = *WV;
    B = *BV;
  } catch (const c10::Error &E) {
    return C.fail("libtorch failed on the unpacked weights: {0}",
                  E.what_without_backtrace());
  }
  return llvm::Error::success();
}

std::vector<int64_t> intsOf(const c10::IValue &V) {
  std::vector<int64_t> R;
  for (const c10::IValue &E : V.toListRef())
    R.push_back(E.toInt());
  return R;
}

// quantized::conv2d[_relu] / conv_transpose2d(input, packed, scale, zp)
llvm::Error convertQuantizedConv(NodeConverter &C, bool Relu) {
  Value *XQ = C.tensor(0);
  auto X = dequantizedOperand(C, 0);
  if (!X)
    return X.takeError();
  c10::IValue Packed = C.in(1).C;
  ConvArgs A;
  A.X = *X;
  auto Transposed = callTorchOp(C, "quantized::conv2d_transpose", {Packed});
  if (!Transposed)
    return Transposed.takeError();
  A.Transposed = (*Transposed)[0].toInt() != 0;
  // A transposed weight's output channels are not its first axis.
  RequantScales S{XQ->type().Quant->Scales[0], float(C.getDouble(2))};
  if (llvm::Error E = unpackWeights(C, "quantized::conv2d_unpack", Packed, A.W, A.B,
                                    A.Transposed ? nullptr : &S))
    return E;
  const std::pair<const char *, std::vector<int64_t> *> Lists[] = {
      {"quantized::conv2d_stride", &A.Stride},
      {"quantized::conv2d_padding", &A.Padding},
      {"quantized::conv2d_dilation", &A.Dilation},
      {"quantized::conv2d_output_padding", &A.OutputPadding}};
  for (const auto &[Op, Into] : Lists) {
    auto R = callTorchOp(C, Op, {Packed});
    if (!R)
      return R.takeError();
    *Into = intsOf((*R)[0]);
  }
  auto Groups = callTorchOp(C, "quantized::conv2d_groups", {Packed});
  if (!Groups)
    return Groups.takeError();
  A.Groups = (*Groups)[0].toInt();
  if (llvm::Error E = emitConv(C, std::move(A)))
    return E;
  return quantizeResult(C, Relu, 2, XQ);
}
llvm::Error convertConv(NodeConverter &C) { return convertQuantizedConv(C, false); }
llvm::Error convertConvRelu(NodeConverter &C) { return convertQuantizedConv(C, true); }

/// linear(X, W, B) with the weight and bias of operand 1's packed
/// parameters (LinearPackedParamsBase).
llvm::Expected<Value *> linearOfPacked(NodeConverter &C, Value *X,
                                       const RequantScales *Scales = nullptr) {
  Value *W = nullptr, *B = nullptr;
  if (llvm::Error E = unpackWeights(C, "quantized::linear_unpack", C.in(1).C, W, B, Scales))
    return E;
  return C.emit("linear", {X, W, B});
}

// quantized::linear[_relu](input, packed, scale, zp)
llvm::Error convertQuantizedLinear(NodeConverter &C, bool Relu) {
  Value *XQ = C.tensor(0);
  auto X = dequantizedOperand(C, 0);
  if (!X)
    return X.takeError();
  RequantScales S{XQ->type().Quant->Scales[0], float(C.getDouble(2))};
  if (llvm::Error E = finish(C, linearOfPacked(C, *X, &S)))
    return E;
  return quantizeResult(C, Relu, 2, XQ);
}
llvm::Error convertLinear(NodeConverter &C) { return convertQuantizedLinear(C, false); }
llvm::Error convertLinearRelu(NodeConverter &C) { return convertQuantizedLinear(C, true); }

// quantized::linear[_relu]_dynamic(input, packed, reduce_range): dynamic
// quantization (torch.ao.quantization.quantize_dynamic) as kiln's
// int8-dynamic form: int8 weights, the float input quantized per tensor at
// run time (dynamic_quantize -> dequantize), a float result.
llvm::Error convertQuantizedLinearDynamic(NodeConverter &C, bool Relu) {
  Value *X = C.tensor(0);
  if (!X)
    return C.takeError();
  auto DQ = C.emitNode("dynamic_quantize", {X}, {{"to", std::string("i8")}}, 3);
  if (!DQ)
    return DQ.takeError();
  auto XD = C.emit("dequantize", {(*DQ)->result(0), (*DQ)->result(1), (*DQ)->result(2)});
  if (!XD)
    return XD.takeError();
  auto Y = linearOfPacked(C, *XD);
  if (Y && Relu)
    Y = C.emit("relu", {*Y});
  return finish(C, std::move(Y));
}
llvm::Error convertLinearDynamic(NodeConverter &C) {
  return convertQuantizedLinearDynamic(C, false);
}
llvm::Error convertLinearReluDynamic(NodeConverter &C) {
  return convertQuantizedLinearDynamic(C, true);
}

// quantized::add/mul[_relu](a, b, scale, zp)
llvm::Error convertBinary(NodeConverter &C, llvm::StringRef Op, bool Relu) {
  Value *AQ = C.tensor(0);
  auto A = dequantizedOperand(C, 0), B = dequantizedOperand(C, 1);
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  if (llvm::Error E = finish(C, C.emit(Op, {*A, *B})))
    return E;
  return quantizeResult(C, Relu, 2, AQ);
}
llvm::Error convertAdd(NodeConverter &C) { return convertBinary(C, "add", false); }
llvm::Error convertAddRelu(NodeConverter &C) { return convertBinary(C, "add", true); }
llvm::Error convertMul(NodeConverter &C) { return convertBinary(C, "mul", false); }
llvm::Error convertMulRelu(NodeConverter &C) { return convertBinary(C, "mul", true); }

// quantized::hardswish(input, scale, zp)
llvm::Error convertHardswish(NodeConverter &C) {
  Value *XQ = C.tensor(0);
  auto X = dequantizedOperand(C, 0);
  if (!X)
    return X.takeError();
  if (llvm::Error E = finish(C, C.emit("hard_swish", {*X})))
    return E;
  return quantizeResult(C, false, 1, XQ);
}

// quantized::cat(tensors, dim, scale, zp)
llvm::Error convertCat(NodeConverter &C) {
  std::vector<Value *> Parts;
  const Value *Like = nullptr;
  for (const TsValue &V : C.getList(0)) {
    if (!V.isTensor())
      return C.fail("quantized::cat of a tensor known at compile time");
    Like = Like ? Like : V.T;
    auto D = dequantized(C, V.T);
    if (!D)
      return D.takeError();
    Parts.push_back(*D);
  }
  if (!Like)
    return C.fail("quantized::cat of no tensors");
  if (llvm::Error E = finish(C, C.emit("concat", Parts, {{"axis", C.getInt(1)}})))
    return E;
  return quantizeResult(C, false, 2, Like);
}

// aten::quantize_per_tensor(input, scale, zero_point, dtype)
llvm::Error convertQuantizePerTensor(NodeConverter &C) {
  Value *X = C.tensor(0);
  double Scale = C.getDouble(1);
  int64_t Zp = int64_t(C.getDouble(2));
  auto Type = c10::ScalarType(C.getInt(3));
  if (llvm::Error E = C.takeError())
    return E;
  if (Type != c10::ScalarType::QUInt8 && Type != c10::ScalarType::QInt8)
    return C.fail("quantizing to {0} is not supported (quint8 and qint8 are)",
                  c10::toString(Type));
  return finish(C, quantizeTo(C, X, Scale, Zp,
                              Type == c10::ScalarType::QUInt8 ? ElementType::U8
                                                              : ElementType::I8));
}

// aten::dequantize(quantized)
llvm::Error convertDequantize(NodeConverter &C) {
  return finish(C, dequantizedOperand(C, 0));
}

const OpConverter Table[] = {
    {"aten::quantize_per_tensor", convertQuantizePerTensor},
    {"aten::dequantize", convertDequantize},
    {"quantized::conv2d", convertConv},
    {"quantized::conv2d_relu", convertConvRelu},
    {"quantized::conv_transpose2d", convertConv},
    {"quantized::linear", convertLinear},
    {"quantized::linear_relu", convertLinearRelu},
    {"quantized::linear_dynamic", convertLinearDynamic},
    {"quantized::linear_relu_dynamic", convertLinearReluDynamic},
    {"quantized::add", convertAdd},
    {"quantized::add_relu", convertAddRelu},
    {"quantized::mul", convertMul},
    {"quantized::mul_relu", convertMulRelu},
    {"quantized::hardswish", convertHardswish},
    {"quantized::cat", convertCat},
};

} // namespace

llvm::Expected<torch::jit::Stack> callTorchOp(NodeConverter &C, const char *Name,
                                              torch::jit::Stack Args) {
  try {
    auto Op = c10::Dispatcher::singleton().findSchemaOrThrow(Name, "");
    Op.callBoxed(&Args);
  } catch (const std::exception &E) {
    return C.fail("libtorch's {0} failed on the packed parameters: {1}", Name,
                  E.what());
  }
  return Args;
}

llvm::ArrayRef<OpConverter> quantizedConverters() { return Table; }

bool isQuantizedOpKind(llvm::StringRef Kind) {
  for (const OpConverter &C : Table)
    if (Kind == C.Kind)
      return true;
  return false;
}

llvm::Expected<const Value *> dequantizeOperands(NodeConverter &C) {
  const Value *First = nullptr;
  for (unsigned I = 0; I < C.numInputs(); ++I) {
    const TsValue &V = C.in(I);
    if (V.isTensor() && isQuantizedValue(V.T)) {
      First = First ? First : V.T;
      auto D = dequantized(C, V.T);
      if (!D)
        return D.takeError();
      C.replaceInput(I, TsValue::tensor(*D));
      continue;
    }
    // A list of quantized tensors (torch.cat on them): a new list of their
    // dequantized values.
    if ((V.K != TsValue::Kind::List && V.K != TsValue::Kind::Tuple) ||
        llvm::none_of(*V.Items, [](const TsValue &E) {
          return E.isTensor() && isQuantizedValue(E.T);
        }))
      continue;
    std::vector<TsValue> Items;
    for (const TsValue &E : *V.Items) {
      if (!E.isTensor() || !isQuantizedValue(E.T)) {
        Items.push_back(E);
        continue;
      }
      First = First ? First : E.T;
      auto D = dequantized(C, E.T);
      if (!D)
        return D.takeError();
      Items.push_back(TsValue::tensor(*D));
    }
    C.replaceInput(I, TsValue::container(V.K, std::move(Items)));
  }
  return First;
}

llvm::Error requantizeOutputs(NodeConverter &C, const Value *In) {
  const QuantParams &P = *In->type().Quant;
  ElementType E = In->type().Elem;
  double Scale = P.Scales[0];
  int64_t Zp = P.ZeroPoints[0];
  std::string Kind = C.kind();
  if (!Kind.empty() && Kind.back() == '_')
    Kind.pop_back();
  // PyTorch's quantized sigmoid, hardsigmoid and tanh fix their output
  // range: [0, 1) and [-1, 1) in 256 levels.
  int64_t Low = E == ElementType::U8 ? 0 : -128;
  if (Kind == "aten::sigmoid" || Kind == "aten::hardsigmoid") {
    Scale = 1.0 / 256;
    Zp = Low;
  } else if (Kind == "aten::tanh") {
    Scale = 2.0 / 256;
    Zp = Low + 128;
  }
  for (unsigned I = 0; I < C.numOutputs(); ++I) {
    const TsValue &V = C.output(I);
    if (!V.isTensor() || !isFloatType(V.T->type().Elem))
      continue;
    auto Q = quantizeTo(C, V.T, Scale, Zp, E);
    if (!Q)
      return Q.takeError();
    C.setTensorOutput(I, *Q);
  }
  return llvm::Error::success();
}

} // namespace kiln::ts_import
