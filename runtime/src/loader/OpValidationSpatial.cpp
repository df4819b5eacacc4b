// Checks of the NHWC spatial operators and fully connected: f32 tensors,
// constant weights in the packed layout the options describe, and output
// shapes equal to the ones the options produce.
#include "loader/Limits.h"
#include "loader/OpValidation.h"
#include "SpatialMath.h"

namespace kiln::rt {

namespace {

using fb::DType;

Status checkSpatialParam(uint32_t Value, uint32_t Min, const char *What) {
  if (Value < Min || Value > limits::MaxSpatialParam)
    return invalidModel(What, " is ", Value, ", expected ", Min, " to ",
                        limits::MaxSpatialParam);
  return Status::ok();
}

/// Kernel, stride, dilation and padding fields common to the window ops.
template <typename Options>
Status checkWindow(const Options &O) {
  const std::pair<uint32_t, const char *> Positive[] = {
      {O.kernel_height(), "kernel_height"}, {O.kernel_width(), "kernel_width"},
      {O.stride_height(), "stride_height"}, {O.stride_width(), "stride_width"},
      {O.dilation_height(), "dilation_height"},
      {O.dilation_width(), "dilation_width"}};
  for (auto [Value, Name] : Positive)
    if (Status S = checkSpatialParam(Value, 1, Name))
      return S;
  const std::pair<uint32_t, const char *> Pads[] = {
      {O.padding_top(), "padding_top"}, {O.padding_right(), "padding_right"},
      {O.padding_bottom(), "padding_bottom"}, {O.padding_left(), "padding_left"}};
  for (auto [Value, Name] : Pads)
    if (Status S = checkSpatialParam(Value, 0, Name))
      return S;
  return checkClampRange(O.output_min(), O.output_max());
}

Status checkNHWC(const TensorDesc &T, const char *What,
                 DType Want = DType::F32) {
  if (Status S = Want == DType::I8 ? checkInt8Activation(T, What)
                                   : checkDType(T, Want, What))
    return S;
  if (Status S = checkRank(T, 4, What))
    return S;
  if (T.Layout != fb::Layout::NHWC)
    return invalidModel(What, " '", T.Name, "' is not NHWC");
  return Status::ok();
}

Status checkBias(const OpView &V, int64_t Channels) {
  if (V.In.size() < 3 || !V.In[2])
    return Status::ok();
  const TensorDesc &B = *V.In[2];
  if (Status S = checkWidenable(B, "bias"))
    return S;
  if (Status S = checkConstant(B, "bias"))
    return S;
  return checkShape(B, {Channels}, "bias");
}

/// XNNPACK asserts (op->compute.range[...] != 0) on an empty input or output
/// rather than returning an error, so a window that leaves no output, or a
/// spatial input of size 0, is refused here; a .kiln is untrusted even when
/// kiln wrote it.
Status checkWindowFits(const TensorDesc &X, int64_t OH, int64_t OW) {
  if (X.dim(0) < 1 || X.dim(1) < 1 || X.dim(2) < 1 || X.dim(3) < 1)
    return invalidModel("input '", X.Name, "' is empty");
  if (OH < 1 || OW < 1)
    return invalidModel("the window is larger than the padded input (output ",
                        OH, "x", OW, ")");
  return Status::ok();
}

Status checkGroups(uint32_t Groups, uint32_t GroupIn, uint32_t GroupOut,
                   int64_t InputChannels) {
  if (Status S = checkSpatialParam(Groups, 1, "groups"))
    return S;
  if (GroupIn < 1 || GroupOut < 1)
    return invalidModel("group channel counts must be >= 1");
  if (int64_t(Groups) * GroupIn != InputChannels)
    return invalidModel("groups ", Groups, " x ", GroupIn,
                        " input channels per group != ", InputChannels,
                        " input channels");
  return Status::ok();
}

} // namespace

Status validateConv2D(const OpView &V) {
  if (Status S = checkArity(V, 2, 3, 1))
    return S;
  const auto &O = *V.Op.options_as_Conv2DOptions();
  if (Status S = checkWindow(O))
    return S;
  const TensorDesc &X = *V.In[0], &W = *V.In[1], &Y = *V.Out[0];
  DType Act = X.DType == DType::I8 ? DType::I8 : DType::F32;
  if (Status S = checkNHWC(X, "input", Act))
    return S;
  if (Status S = checkNHWC(Y, "output", Act))
    return S;
  if (Status S = checkGroups(O.groups(), O.group_input_channels(),
                             O.group_output_channels(), X.dim(3)))
    return S;
  int64_t OutChannels = int64_t(O.groups()) * O.group_output_channels();
  if (Status S = checkWidenable(W, "weight"))
    return S;
  if (Status S = checkConstant(W, "weight"))
    return S;
  if (O.depthwise()) {
    if (O.group_input_channels() != 1)
      return invalidModel("a depthwise convolution has 1 input channel per "
                          "group, not ",
                          O.group_input_channels());
    if (W.Layout != fb::Layout::HWO)
      return invalidModel("depthwise weight '", W.Name, "' is not HWO");
    if (Status S = checkShape(W, {1, O.kernel_height(), O.kernel_width(),
                                  OutChannels},
                              "weight"))
      return S;
  } else {
    if (W.Layout != fb::Layout::OHWI && W.Layout != fb::Layout::BLOCKED)
      return invalidModel("weight '", W.Name, "' is not OHWI");
    if (Status S = checkShape(W, {OutChannels, O.kernel_height(),
                                  O.kernel_width(), O.group_input_channels()},
                              "weight"))
      return S;
  }
  if (Status S = Act == DType::I8 ? checkQuantizedWeights(V, OutChannels)
                                  : checkBias(V, OutChannels))
    return S;
  int64_t OH = windowOutputSize(X.dim(1), O.padding_top(), O.padding_bottom(),
                                O.kernel_height(), O.stride_height(),
                                O.dilation_height());
  int64_t OW = windowOutputSize(X.dim(2), O.padding_left(), O.padding_right(),
                                O.kernel_width(), O.stride_width(),
                                O.dilation_width());
  if (Status S = checkWindowFits(X, OH, OW))
    return S;
  return checkShape(Y, {X.dim(0), OH, OW, OutChannels}, "output");
}

Status validateDeconv2D(const OpView &V) {
  if (Status S = checkArity(V, 2, 3, 1))
    return S;
  const auto &O = *V.Op.options_as_Deconv2DOptions();
  if (Status S = checkWindow(O))
    return S;
  if (O.adjustment_height() >= O.stride_height() ||
      O.adjustment_width() >= O.stride_width())
    return invalidModel("adjustment must be smaller than the stride");
  const TensorDesc &X = *V.In[0], &W = *V.In[1], &Y = *V.Out[0];
  if (Status S = checkNHWC(X, "input"))
    return S;
  if (Status S = checkNHWC(Y, "output"))
    return S;
  if (Status S = checkGroups(O.groups(), O.group_input_channels(),
                             O.group_output_channels(), X.dim(3)))
    return S;
  int64_t OutChannels = int64_t(O.groups()) * O.group_output_channels();
  if (Status S = checkWidenable(W, "weight"))
    return S;
  if (Status S = checkConstant(W, "weight"))
    return S;
  if (W.Layout != fb::Layout::OHWI)
    return invalidModel("weight '", W.Name, "' is not OHWI");
  if (Status S = checkShape(W, {OutChannels, O.kernel_height(),
                                O.kernel_width(), O.group_input_channels()},
                            "weight"))
    return S;
  if (Status S = checkBias(V, OutChannels))
    return S;
  int64_t OH = deconvOutputSize(X.dim(1), O.padding_top(), O.padding_bottom(),
                                O.adjustment_height(), O.kernel_height(),
                                O.stride_height(), O.dilation_height());
  int64_t OW = deconvOutputSize(X.dim(2), O.padding_left(), O.padding_right(),
                                O.adjustment_width(), O.kernel_width(),
                                O.stride_width(), O.dilation_width());
  if (X.dim(1) < 1 || X.dim(2) < 1 || OH < 1 || OW < 1)
    return invalidModel("the padding leaves no output");
  return checkShape(Y, {X.dim(0), OH, OW, OutChannels}, "output");
}

Status validateFullyConnected(const OpView &V) {
  if (Status S = checkArity(V, 2, 3, 1))
    return S;
  const auto &O = *V.Op.options_as_FullyConnectedOptions();
  if (Status S = checkClampRange(O.output_min(), O.output_max()))
    return S;
  const TensorDesc &X = *V.In[0], &W = *V.In[1], &Y = *V.Out[0];
  bool Int8 = X.DType == DType::I8;
  for (const TensorDesc *T : {&X, &Y})
    if (Status S = Int8 ? checkInt8Activation(*T, "tensor")
                        : checkDType(*T, DType::F32, "tensor"))
      return S;
  if (Status S = checkWidenable(W, "weight"))
    return S;
  if (X.rank() < 1)
    return invalidModel("input '", X.Name, "' must have rank >= 1");
  if (Status S = checkConstant(W, "weight"))
    return S;
  if (Status S = checkRank(W, 2, "weight"))
    return S;
  if (W.dim(1) != X.Shape.back())
    return invalidModel("weight '", W.Name, "' ", shapeString(W.Shape),
                        " does not take ", X.Shape.back(), " input features");
  if (Status S = Int8 ? checkQuantizedWeights(V, W.dim(0)) : checkBias(V, W.dim(0)))
    return S;
  std::vector<int64_t> Want = X.Shape;
  Want.back() = W.dim(0);
  return checkShape(Y, Want, "output");
}

Status validatePool2D(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const auto &O = *V.Op.options_as_Pool2DOptions();
  if (Status S = checkWindow(O))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  // Max pooling moves int8 values (same parameters in and out).
  DType Act = X.DType == DType::I8 && V.Op.kind() == fb::OpKind::MAX_POOL_2D
                  ? DType::I8
                  : DType::F32;
  if (Status S = checkNHWC(X, "input", Act))
    return S;
  if (Status S = checkNHWC(Y, "output", Act))
    return S;
  int64_t OH = windowOutputSize(X.dim(1), O.padding_top(), O.padding_bottom(),
                                O.kernel_height(), O.stride_height(),
                                O.dilation_height());
  int64_t OW = windowOutputSize(X.dim(2), O.padding_left(), O.padding_right(),
                                O.kernel_width(), O.stride_width(),
                                O.dilation_width());
  if (Status S = checkWindowFits(X, OH, OW))
    return S;
  return checkShape(Y, {X.dim(0), OH, OW, X.dim(3)}, "output");
}

Status validateGlobalPool2D(const OpView &V) {
  if (Status S = checkArity(V, 1, 1, 1))
    return S;
  const auto &O = *V.Op.options_as_Pool2DOptions();
  if (Status S = checkClampRange(O.output_min(), O.output_max()))
    return S;
  const TensorDesc &X = *V.In[0], &Y = *V.Out[0];
  DType Act = X.DType == DType::I8 &&
                      V.Op.kind() == fb::OpKind::GLOBAL_AVERAGE_POOL_2D
                  ? DType::I8
                  : DType::F32;
  if (Status S = checkNHWC(X, "input", Act))
    return S;
  if (Status S = checkNHWC(Y, "output", Act))
    return S;
  if (X.dim(1) * X.dim(2) == 0)
    return invalidModel("global pooling over an empty image");
  return checkShape(Y, {X.dim(0), 1, 1, X.dim(3)}, "output");
}

} // namespace kiln::rt
