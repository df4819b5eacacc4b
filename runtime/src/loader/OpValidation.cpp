// Dispatch of the operator checks by kind, and the helpers they share.
#include "loader/OpValidation.h"

#include <cmath>

namespace kiln::rt {

fb::OpOptions expectedOptions(fb::OpKind Kind) {
  using K = fb::OpKind;
  using O = fb::OpOptions;
  switch (Kind) {
  case K::CONV_2D: return O::Conv2DOptions;
  case K::DECONV_2D: return O::Deconv2DOptions;
  case K::FULLY_CONNECTED: return O::FullyConnectedOptions;
  case K::MAX_POOL_2D:
  case K::AVERAGE_POOL_2D: return O::Pool2DOptions;
  case K::GLOBAL_AVERAGE_POOL_2D:
  case K::GLOBAL_MAX_POOL_2D: return O::Pool2DOptions;
  case K::BINARY: return O::BinaryOptions;
  case K::UNARY: return O::UnaryOptions;
  case K::SOFTMAX: return O::SoftmaxOptions;
  case K::PRELU: return O::NONE;
  case K::TRANSPOSE: return O::TransposeOptions;
  case K::RESHAPE: return O::ReshapeOptions;
  case K::CONCAT: return O::ConcatOptions;
  case K::SLICE: return O::SliceOptions;
  case K::PAD: return O::PadOptions;
  case K::REDUCE: return O::ReduceOptions;
  case K::MATMUL: return O::MatMulOptions;
  case K::BROADCAST: return O::BroadcastOptions;
  case K::GATHER: return O::GatherOptions;
  case K::CAST: return O::CastOptions;
  case K::SELECT: return O::SelectOptions;
  case K::ARG_REDUCE: return O::ArgReduceOptions;
  case K::LAYER_NORM: return O::LayerNormOptions;
  case K::PIXELS_TO_TENSOR: return O::PixelsToTensorOptions;
  case K::BOX_NMS: return O::BoxNmsOptions;
  case K::LSTM: return O::LstmOptions;
  case K::GRU: return O::GruOptions;
  case K::RESIZE: return O::ResizeOptions;
  case K::QUANTIZE:
  case K::DEQUANTIZE: return O::QuantizeOptions;
  case K::UNKNOWN: break;
  }
  return O::NONE;
}

std::string opKindName(fb::OpKind Kind) {
  if (Kind >= fb::OpKind::MIN && Kind <= fb::OpKind::MAX)
    return fb::EnumNameOpKind(Kind);
  return concat("kind(", static_cast<int>(Kind), ")");
}

/// Operators that move int8 values without arithmetic keep their
/// parameters; no other operator than the ones whose validators accept I8
/// reaches here with quantized tensors of differing parameters.
static Status checkPassThroughQuantization(const OpView &V) {
  using K = fb::OpKind;
  switch (V.Op.kind()) {
  case K::TRANSPOSE:
  case K::RESHAPE:
  case K::CONCAT:
  case K::SLICE:
  case K::MAX_POOL_2D:
  case K::GLOBAL_MAX_POOL_2D:
    break;
  default:
    return Status::ok();
  }
  for (const TensorDesc *In : V.In)
    if (In && (In->isQuantized() || V.Out[0]->isQuantized()))
      if (Status S = checkSameQuantization(*In, *V.Out[0]))
        return S;
  return Status::ok();
}

static Status validateKind(const OpView &V);

/// Only a dense f32 convolution or fully connected layer reads BLOCKED
/// weights (BlockedLayout.h); every other operand of every operator is in
/// its logical layout.
static Status checkBlockedOperands(const OpView &V) {
  for (size_t I = 0; I < V.In.size(); ++I) {
    if (!V.In[I] || !V.In[I]->Blocked)
      continue;
    const auto *Conv = V.Op.options_as_Conv2DOptions();
    bool Dense = (Conv && !Conv->depthwise() && Conv->groups() == 1) ||
                 V.Op.kind() == fb::OpKind::FULLY_CONNECTED;
    if (I != 1 || !Dense || !V.In[0] || V.In[0]->DType != fb::DType::F32)
      return invalidModel("input ", I, " '", V.In[I]->Name,
                          "' is BLOCKED, which only the weight of a dense "
                          "f32 CONV_2D or FULLY_CONNECTED may be");
  }
  return Status::ok();
}

Status validateOperator(const OpView &V) {
  if (Status S = checkBlockedOperands(V))
    return S;
  if (Status S = validateKind(V))
    return S;
  return checkPassThroughQuantization(V);
}

static Status validateKind(const OpView &V) {
  using K = fb::OpKind;
  switch (V.Op.kind()) {
  case K::CONV_2D: return validateConv2D(V);
  case K::DECONV_2D: return validateDeconv2D(V);
  case K::FULLY_CONNECTED: return validateFullyConnected(V);
  case K::MAX_POOL_2D:
  case K::AVERAGE_POOL_2D: return validatePool2D(V);
  case K::GLOBAL_AVERAGE_POOL_2D:
  case K::GLOBAL_MAX_POOL_2D: return validateGlobalPool2D(V);
  case K::BINARY: return validateBinary(V);
  case K::UNARY: return validateUnary(V);
  case K::SOFTMAX: return validateSoftmax(V);
  case K::PRELU: return validatePRelu(V);
  case K::TRANSPOSE: return validateTranspose(V);
  case K::RESHAPE: return validateReshape(V);
  case K::CONCAT: return validateConcat(V);
  case K::SLICE: return validateSlice(V);
  case K::PAD: return validatePad(V);
  case K::REDUCE: return validateReduce(V);
  case K::MATMUL: return validateMatMul(V);
  case K::BROADCAST: return validateBroadcast(V);
  case K::GATHER: return validateGather(V);
  case K::CAST: return validateCast(V);
  case K::SELECT: return validateSelect(V);
  case K::ARG_REDUCE: return validateArgReduce(V);
  case K::LAYER_NORM: return validateLayerNorm(V);
  case K::PIXELS_TO_TENSOR: return validatePixelsToTensor(V);
  case K::BOX_NMS: return validateBoxNms(V);
  case K::LSTM: return validateLstm(V);
  case K::GRU: return validateGru(V);
  case K::RESIZE: return validateResize(V);
  case K::QUANTIZE:
  case K::DEQUANTIZE: return validateQuantize(V);
  case K::UNKNOWN: break;
  }
  return unsupported("unknown operator kind");
}

Status checkArity(const OpView &V, size_t MinIn, size_t MaxIn, size_t NumOut) {
  if (V.In.size() < MinIn || V.In.size() > MaxIn) {
    if (MinIn == MaxIn)
      return invalidModel("expects ", MinIn, " inputs, has ", V.In.size());
    return invalidModel("expects ", MinIn, " to ", MaxIn, " inputs, has ",
                        V.In.size());
  }
  for (size_t I = 0; I < MinIn; ++I)
    if (!V.In[I])
      return invalidModel("input ", I, " is required");
  if (V.Out.size() != NumOut)
    return invalidModel("expects ", NumOut, " outputs, has ", V.Out.size());
  return Status::ok();
}

Status checkDType(const TensorDesc &T, fb::DType Want, const char *What) {
  if (T.DType != Want)
    return invalidModel(What, " '", T.Name, "' is ", dtypeName(T.DType),
                        ", expected ", dtypeName(Want));
  return Status::ok();
}

Status checkShape(const TensorDesc &T, const std::vector<int64_t> &Want,
                  const char *What) {
  if (T.Shape != Want)
    return invalidModel(What, " '", T.Name, "' has shape ",
                        shapeString(T.Shape), ", expected ", shapeString(Want));
  return Status::ok();
}

Status checkRank(const TensorDesc &T, int64_t Rank, const char *What) {
  if (T.rank() != Rank)
    return invalidModel(What, " '", T.Name, "' has rank ", T.rank(),
                        ", expected ", Rank);
  return Status::ok();
}

Status checkConstant(const TensorDesc &T, const char *What) {
  if (!T.isConstant())
    return invalidModel(What, " '", T.Name, "' must be a constant");
  return Status::ok();
}

Status checkClampRange(float Min, float Max) {
  if (std::isnan(Min) || std::isnan(Max) || Min > Max)
    return invalidModel("bad output range [", Min, ", ", Max, "]");
  return Status::ok();
}

Status checkAligned(const flatbuffers::Vector<int64_t> *V, const char *What) {
  if (V && reinterpret_cast<uintptr_t>(V->data()) % alignof(int64_t) != 0)
    return invalidModel(What, " is not 8-byte aligned");
  return Status::ok();
}

Status broadcastShapes(const std::vector<int64_t> &A,
                       const std::vector<int64_t> &B,
                       std::vector<int64_t> &Out) {
  size_t R = std::max(A.size(), B.size());
  Out.assign(R, 1);
  for (size_t I = 0; I < R; ++I) {
    int64_t DA = I < R - A.size() ? 1 : A[I - (R - A.size())];
    int64_t DB = I < R - B.size() ? 1 : B[I - (R - B.size())];
    if (DA != DB && DA != 1 && DB != 1)
      return invalidModel("shapes ", shapeString(A), " and ", shapeString(B),
                          " do not broadcast");
    Out[I] = DA == 1 ? DB : DA;
  }
  return Status::ok();
}

} // namespace kiln::rt
