// Convolutions, fully connected layers and pools.
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <string>

namespace kiln::nnapi {

namespace {

/// A zero bias for OC channels: float, or int32 at the input scale times
/// the weight scale (0 for per-channel weights).
uint32_t zeroBias(Lowering &L, uint32_t In, uint32_t Filter, uint32_t OC) {
  const fb::NnapiOperandT &X = L.operand(In), &W = L.operand(Filter);
  std::vector<uint8_t> Zeros(size_t(OC) * 4, 0);
  if (X.type == TENSOR_FLOAT32)
    return L.constant(TENSOR_FLOAT32, {OC}, 0, 0, std::move(Zeros));
  float Scale = W.type == TENSOR_QUANT8_SYMM_PER_CHANNEL ? 0.f
                                                         : X.scale * W.scale;
  return L.constant(TENSOR_INT32, {OC}, Scale, 0, std::move(Zeros));
}

/// Pads (left, right, top, bottom) as a PAD of NHWC X (a quantized tensor
/// pads with its zero point: the real 0 a convolution pads with); returns
/// the padded operand and zeroes Pads. Needs level 28.
bool padFirst(Lowering &L, uint32_t &X, uint32_t Pads[4], const std::string &Why,
              int32_t Op) {
  if (!L.need(28, Why + " (PAD)", Op))
    return false;
  std::vector<uint32_t> Dims = L.operand(X).dimensions;
  Dims[1] += Pads[2] + Pads[3];
  Dims[2] += Pads[0] + Pads[1];
  uint32_t Padded = L.activationLike(X, Dims);
  L.emit(PAD,
         {X, L.tensorI32({0, 0, int32_t(Pads[2]), int32_t(Pads[3]),
                          int32_t(Pads[0]), int32_t(Pads[1]), 0, 0},
                         {4, 2})},
         {Padded}, Op);
  X = Padded;
  for (int I = 0; I < 4; ++I)
    Pads[I] = 0;
  return true;
}

/// Whether a side's padding reaches the filter's extent (KW x KH), which
/// NNAPI refuses (AOSP's convolution and pooling preparation).
bool padReachesFilter(const uint32_t Pads[4], uint32_t KW, uint32_t KH) {
  return Pads[0] >= KW || Pads[1] >= KW || Pads[2] >= KH || Pads[3] >= KH;
}

/// A quantized average pool as a depthwise convolution with weights of
/// 1/(KH*KW): one rounding, from the exact integer sum into the output's
/// own scale, where AVERAGE_POOL_2D (whose output must keep the input's
/// scale) and a requantizing ADD would round twice. Zero padding counts in
/// the divisor, as count_include_pad wants.
void averageAsDepthwise(Lowering &L, int32_t Op, uint32_t X,
                        const fb::Pool2DOptionsT &C) {
  const fb::OperatorT &O = L.op(Op);
  uint32_t Channels = L.operand(X).dimensions.back();
  uint32_t KH = C.kernel_height, KW = C.kernel_width;
  uint32_t Pads[4] = {C.padding_left, C.padding_right, C.padding_top,
                      C.padding_bottom};
  if (padReachesFilter(Pads, KW, KH) &&
      !padFirst(L, X, Pads, "padding at least the pool's window", Op))
    return;
  uint32_t W = L.constant(TENSOR_QUANT8_SYMM_PER_CHANNEL, {1, KH, KW, Channels},
                          0, 0, std::vector<uint8_t>(size_t(KH) * KW * Channels, 1));
  L.setChannelScales(W, 3, std::vector<float>(Channels, 1.f / float(KH * KW)));
  uint32_t B = L.constant(TENSOR_INT32, {Channels}, 0, 0,
                          std::vector<uint8_t>(size_t(Channels) * 4, 0));
  L.emitWithClamp(DEPTHWISE_CONV_2D,
                  {X, W, B, L.scalarI32(int32_t(Pads[0])),
                   L.scalarI32(int32_t(Pads[1])), L.scalarI32(int32_t(Pads[2])),
                   L.scalarI32(int32_t(Pads[3])),
                   L.scalarI32(int32_t(C.stride_width)),
                   L.scalarI32(int32_t(C.stride_height)), L.scalarI32(1)},
                  {}, L.operandOf(O.outputs[0]), C.output_min, C.output_max,
                  Op);
}

} // namespace

void lowerConv(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::Conv2DOptionsT &C = *O.options.AsConv2DOptions();
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t W = L.weightFor(X, O.inputs[1]);
  uint32_t OC = uint32_t(L.tensor(O.outputs[0]).shape.back());
  uint32_t B = O.inputs.size() > 2 && O.inputs[2] >= 0
                   ? L.weightFor(X, O.inputs[2])
                   : zeroBias(L, X, W, OC);
  // NNAPI filters are [OC, KH, KW, IC] and [1, KH, KW, OC] (depthwise);
  // the padding is held against the dilated extent.
  const std::vector<uint32_t> &FD = L.operand(W).dimensions;
  const uint32_t EffW = (FD[2] - 1) * C.dilation_width + 1;
  const uint32_t EffH = (FD[1] - 1) * C.dilation_height + 1;
  uint32_t Pads[4] = {C.padding_left, C.padding_right, C.padding_top,
                      C.padding_bottom};
  if (padReachesFilter(Pads, EffW, EffH) &&
      !padFirst(L, X, Pads, "padding at least the filter's size", Op))
    return;
  std::vector<uint32_t> In = {X,
                              W,
                              B,
                              L.scalarI32(int32_t(Pads[0])),
                              L.scalarI32(int32_t(Pads[1])),
                              L.scalarI32(int32_t(Pads[2])),
                              L.scalarI32(int32_t(Pads[3])),
                              L.scalarI32(int32_t(C.stride_width)),
                              L.scalarI32(int32_t(C.stride_height))};
  int32_t Code = CONV_2D;
  if (C.depthwise) {
    Code = DEPTHWISE_CONV_2D;
    In.push_back(L.scalarI32(int32_t(C.group_output_channels)));
  } else if (C.groups > 1) {
    if (!L.need(29, "a grouped convolution (GROUPED_CONV_2D)", Op))
      return;
    Code = GROUPED_CONV_2D;
    In.push_back(L.scalarI32(int32_t(C.groups)));
  }
  std::vector<uint32_t> After;
  bool Dilated = C.dilation_height != 1 || C.dilation_width != 1;
  if (Code == GROUPED_CONV_2D)
    After.push_back(L.scalarBool(false)); // NHWC
  if (Dilated) {
    if (Code == GROUPED_CONV_2D)
      return L.fail(Op, "NNAPI's GROUPED_CONV_2D has no dilation");
    if (!L.need(29, "a dilated convolution", Op))
      return;
    After = {L.scalarBool(false), L.scalarI32(int32_t(C.dilation_width)),
             L.scalarI32(int32_t(C.dilation_height))};
  }
  L.emitWithClamp(Code, In, After, L.operandOf(O.outputs[0]), C.output_min,
                  C.output_max, Op);
}

void lowerDeconv(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::Deconv2DOptionsT &C = *O.options.AsDeconv2DOptions();
  if (C.groups != 1 || C.dilation_height != 1 || C.dilation_width != 1 ||
      C.adjustment_height || C.adjustment_width)
    return L.fail(Op, "NNAPI's TRANSPOSE_CONV_2D takes no groups, dilation "
                      "or output padding");
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t W = L.weightFor(X, O.inputs[1]);
  uint32_t OC = uint32_t(L.tensor(O.outputs[0]).shape.back());
  uint32_t B = O.inputs.size() > 2 && O.inputs[2] >= 0
                   ? L.weightFor(X, O.inputs[2])
                   : zeroBias(L, X, W, OC);
  L.emitWithClamp(TRANSPOSE_CONV_2D,
                  {X, W, B, L.scalarI32(int32_t(C.padding_left)),
                   L.scalarI32(int32_t(C.padding_right)),
                   L.scalarI32(int32_t(C.padding_top)),
                   L.scalarI32(int32_t(C.padding_bottom)),
                   L.scalarI32(int32_t(C.stride_width)),
                   L.scalarI32(int32_t(C.stride_height))},
                  {L.scalarBool(false)}, L.operandOf(O.outputs[0]),
                  C.output_min, C.output_max, Op);
}

void lowerFullyConnected(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::FullyConnectedOptionsT &C = *O.options.AsFullyConnectedOptions();
  const auto &WShape = L.tensor(O.inputs[1]).shape;
  uint32_t OC = uint32_t(WShape[0]), K = uint32_t(WShape[1]);
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t W = L.weightFor(X, O.inputs[1]);
  uint32_t Out = L.operandOf(O.outputs[0]);
  uint64_t Count = 1;
  for (uint32_t D : L.operand(X).dimensions)
    Count *= D;
  uint32_t Batch = uint32_t(Count / K);
  uint32_t B = O.inputs.size() > 2 && O.inputs[2] >= 0
                   ? L.weightFor(X, O.inputs[2])
                   : zeroBias(L, X, W, OC);
  auto Reshape = [&](uint32_t From, uint32_t To) {
    std::vector<int32_t> Shape(L.operand(To).dimensions.begin(),
                               L.operand(To).dimensions.end());
    L.emit(RESHAPE, {From, L.tensorI32(Shape)}, {To}, Op);
  };
  if (L.operand(W).type == TENSOR_QUANT8_SYMM_PER_CHANNEL) {
    // NNAPI's FULLY_CONNECTED takes no per-channel weights: a 1x1
    // CONV_2D over [batch, 1, 1, K] reads the same bytes.
    uint32_t X4 = L.activationLike(X, {Batch, 1, 1, K});
    Reshape(X, X4);
    uint32_t W4 = W;
    // The weights are this layer's own, or shared only with other
    // FULLY_CONNECTEDs of the same weight (an unrolled recurrence's
    // steps), which read them with the same dimensions.
    L.setDimensions(W4, {OC, 1, 1, K});
    uint32_t Y4 = L.activationLike(Out, {Batch, 1, 1, OC});
    uint32_t Zero = L.scalarI32(0), One = L.scalarI32(1);
    if (!L.emitWithClamp(CONV_2D, {X4, W4, B, Zero, Zero, Zero, Zero, One, One},
                         {}, Y4, C.output_min, C.output_max, Op))
      return;
    return Reshape(Y4, Out);
  }
  if (L.operand(Out).dimensions.size() == 2)
    return (void)L.emitWithClamp(FULLY_CONNECTED, {X, W, B}, {}, Out,
                                 C.output_min, C.output_max, Op);
  uint32_t Y2 = L.activationLike(Out, {Batch, OC});
  if (L.emitWithClamp(FULLY_CONNECTED, {X, W, B}, {}, Y2, C.output_min,
                      C.output_max, Op))
    Reshape(Y2, Out);
}

void lowerPool(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  uint32_t X = L.operandOf(O.inputs[0]);
  const auto &XShape = L.tensor(O.inputs[0]).shape;
  bool Max = O.kind == fb::OpKind::MAX_POOL_2D ||
             O.kind == fb::OpKind::GLOBAL_MAX_POOL_2D;
  fb::Pool2DOptionsT Global;
  Global.kernel_height = uint32_t(XShape[1]);
  Global.kernel_width = uint32_t(XShape[2]);
  bool IsGlobal = O.kind == fb::OpKind::GLOBAL_AVERAGE_POOL_2D ||
                  O.kind == fb::OpKind::GLOBAL_MAX_POOL_2D;
  if (IsGlobal && O.options.AsPool2DOptions()) { // keep its fused clamp
    Global.output_min = O.options.AsPool2DOptions()->output_min;
    Global.output_max = O.options.AsPool2DOptions()->output_max;
  }
  const fb::Pool2DOptionsT &C =
      IsGlobal ? Global : *O.options.AsPool2DOptions();
  if (C.dilation_height != 1 || C.dilation_width != 1)
    return L.fail(Op, "NNAPI pools have no dilation");
  uint32_t Pads[4] = {C.padding_left, C.padding_right, C.padding_top,
                      C.padding_bottom};
  bool Padded = Pads[0] || Pads[1] || Pads[2] || Pads[3];
  // A quantized average whose padding counts is a depthwise convolution,
  // which pads with real zeros itself.
  if (!Max && L.quantized(O.outputs[0]) && (!Padded || C.count_include_pad))
    return averageAsDepthwise(L, Op, X, C);
  // NNAPI averages real pixels only: pad with zeros first (PAD writes the
  // zero point of a quantized tensor), then pool without padding.
  if (!Max && C.count_include_pad && Padded &&
      !padFirst(L, X, Pads, "an average pool that counts padding", Op))
    return;
  // A window wholly in the padding has no value (NNAPI refuses it; kiln's
  // max pool would give -inf there).
  if (padReachesFilter(Pads, C.kernel_width, C.kernel_height))
    return L.fail(Op, "NNAPI refuses a pool whose padding is at least its " +
                          std::to_string(C.kernel_width) + "x" +
                          std::to_string(C.kernel_height) + " window");
  uint32_t Out = L.outputLike(X, O.outputs[0]);
  if (!L.emitWithClamp(
          Max ? MAX_POOL_2D : AVERAGE_POOL_2D,
          {X, L.scalarI32(int32_t(Pads[0])), L.scalarI32(int32_t(Pads[1])),
           L.scalarI32(int32_t(Pads[2])), L.scalarI32(int32_t(Pads[3])),
           L.scalarI32(int32_t(C.stride_width)),
           L.scalarI32(int32_t(C.stride_height)),
           L.scalarI32(int32_t(C.kernel_width)),
           L.scalarI32(int32_t(C.kernel_height))},
          {}, Out, C.output_min, C.output_max, Op))
    return;
  L.finishOutput(Out, O.outputs[0], Op);
}

} // namespace kiln::nnapi
