// SOFTMAX (and log-softmax) along one axis of a PLAIN tensor; a C4 input is
// made PLAIN first.
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

std::string lowerSoftmax(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsSoftmaxOptions();
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  const Storage &YS = L.storage(Y);
  if (YS.C4)
    return "a softmax into an NHWC activation";
  BindingRef XB = L.plainOf(X);
  int64_t Outer = 1, Inner = 1;
  for (int I = 0; I < O.axis; ++I)
    Outer *= YS.Dims[size_t(I)];
  for (size_t I = size_t(O.axis) + 1; I < YS.Dims.size(); ++I)
    Inner *= YS.Dims[I];
  PendingDispatch &D = L.dispatch("softmax");
  D.Spec[20] = uint32_t(Outer);
  D.Spec[21] = uint32_t(YS.Dims[size_t(O.axis)]);
  D.Spec[22] = uint32_t(Inner);
  D.Spec[23] = O.log ? 1 : 0;
  D.Bindings = {XB, L.bindTensor(Y)};
  flatGroups(D, uint64_t(Outer * Inner));
  return "";
}

} // namespace kiln::vulkan
