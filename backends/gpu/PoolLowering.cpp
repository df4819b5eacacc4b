// Pooling on C4 tensors: windowed max and average (pool2d_c4), and global
// average and max over the image (global_pool_c4), which a REDUCE mean or
// max over H and W that keeps them is too.
#include "backends/gpu/VulkanLowering.h"

#include <limits>

namespace kiln::vulkan {

namespace {

std::string globalPool(Lowering &L, const fb::OperatorT &Op, bool IsMax,
                       float Min, float Max) {
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  if (!L.storage(X).C4 || !L.storage(Y).C4)
    return "global pooling runs on NHWC activations only";
  const auto &XD = L.storage(X).Dims;
  int64_t Blocks = XD[0] * ((XD[3] + 3) / 4);
  PendingDispatch &D = L.dispatch("global_pool_c4");
  clampConstants(D, Min, Max);
  D.Spec[20] = uint32_t(XD[1] * XD[2]);
  D.Spec[21] = uint32_t(Blocks);
  D.Spec[22] = IsMax ? 1 : 0;
  D.Bindings = {L.bindTensor(X), L.bindTensor(Y)};
  flatGroups(D, uint64_t(Blocks));
  return "";
}

} // namespace

std::string lowerPool(Lowering &L, const fb::OperatorT &Op) {
  if (Op.kind == fb::OpKind::REDUCE) {
    const auto &R = *Op.options.AsReduceOptions();
    const auto &YD = L.storage(Op.outputs[0]).Dims;
    bool OverImage = R.axes == std::vector<int32_t>{1, 2} &&
                     L.storage(Op.inputs[0]).C4 && YD.size() == 4;
    if (!OverImage || (R.op != fb::ReduceOp::MEAN && R.op != fb::ReduceOp::MAXIMUM))
      return "the Vulkan target reduces only the mean or max over H and W of "
             "an NHWC activation, keeping the dims";
    return globalPool(L, Op, R.op == fb::ReduceOp::MAXIMUM,
                      -std::numeric_limits<float>::infinity(),
                      std::numeric_limits<float>::infinity());
  }
  const auto &O = *Op.options.AsPool2DOptions();
  if (Op.kind == fb::OpKind::GLOBAL_AVERAGE_POOL_2D ||
      Op.kind == fb::OpKind::GLOBAL_MAX_POOL_2D)
    return globalPool(L, Op, Op.kind == fb::OpKind::GLOBAL_MAX_POOL_2D,
                      O.output_min, O.output_max);
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  if (!L.storage(X).C4 || !L.storage(Y).C4)
    return "pooling runs on NHWC activations only";
  const auto &XD = L.storage(X).Dims, &YD = L.storage(Y).Dims;
  PendingDispatch &D = L.dispatch("pool2d_c4");
  clampConstants(D, O.output_min, O.output_max);
  windowConstants(D, XD, YD, O);
  D.Spec[36] = Op.kind == fb::OpKind::MAX_POOL_2D ? 1 : 0;
  D.Spec[37] = O.count_include_pad ? 1 : 0;
  D.Bindings = {L.bindTensor(X), L.bindTensor(Y)};
  return "";
}

} // namespace kiln::vulkan
