// RESIZE of a C4 [N, H, W, C] tensor over H and W with the compiler's tap
// tables (each axis: input indices and weights per output coordinate); an
// axis that keeps its size gets one identity tap. N and C never resize.
#include "backends/vulkan/VulkanLowering.h"

#include <cstring>

namespace kiln::vulkan {

namespace {

struct Taps {
  BindingRef Index, Weight;
  int64_t Count = 1;
};

std::string axisTaps(Lowering &L, const fb::OperatorT &Op, size_t Axis,
                     int64_t Out, Taps &T) {
  int32_t Idx = Op.inputs[1 + 2 * Axis], W = Op.inputs[2 + 2 * Axis];
  if (Idx < 0) {
    std::vector<uint8_t> Identity(size_t(Out) * 4);
    for (int64_t O = 0; O < Out; ++O) {
      int32_t V = int32_t(O);
      std::memcpy(Identity.data() + 4 * O, &V, 4);
    }
    T.Index = L.bindWeight(std::move(Identity), -1);
    T.Weight = L.bindFloats(std::vector<float>(size_t(Out), 1.0f), -1);
    T.Count = 1;
    return "";
  }
  if (L.tensor(Idx).dtype != fb::DType::I32 || L.tensor(Idx).shape.size() != 2)
    return "its tap indices are not I32 [out, taps]";
  T.Count = L.tensor(Idx).shape[1];
  T.Index = L.bindWeight(L.rawBytes(Idx), Idx);
  T.Weight = L.bindFloats(L.floats(W), W);
  return "";
}

} // namespace

std::string lowerResize(Lowering &L, const fb::OperatorT &Op) {
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  const Storage &XS = L.storage(X), &YS = L.storage(Y);
  if (!XS.C4 || !YS.C4)
    return "the Vulkan target resizes NHWC activations only";
  if (Op.inputs.size() != 9 || Op.inputs[1] >= 0 || Op.inputs[7] >= 0)
    return "the Vulkan target resizes over H and W only";
  Taps H, W;
  if (std::string Why = axisTaps(L, Op, 1, YS.Dims[1], H); !Why.empty())
    return Why;
  if (std::string Why = axisTaps(L, Op, 2, YS.Dims[2], W); !Why.empty())
    return Why;
  int64_t Blocks = XS.Dims[0] * ((XS.Dims[3] + 3) / 4);
  PendingDispatch &D = L.dispatch("resize_c4");
  workgroup(D, 8, 8, 1);
  D.Spec[20] = uint32_t(XS.Dims[1]);
  D.Spec[21] = uint32_t(XS.Dims[2]);
  D.Spec[22] = uint32_t(YS.Dims[1]);
  D.Spec[23] = uint32_t(YS.Dims[2]);
  D.Spec[24] = uint32_t(Blocks);
  D.Spec[25] = uint32_t(H.Count);
  D.Spec[26] = uint32_t(W.Count);
  D.Bindings = {L.bindTensor(X), H.Index, H.Weight, W.Index, W.Weight,
                L.bindTensor(Y)};
  D.Groups[0] = uint32_t((YS.Dims[2] + 7) / 8);
  D.Groups[1] = uint32_t((YS.Dims[1] + 7) / 8);
  D.Groups[2] = uint32_t(Blocks);
  return "";
}

} // namespace kiln::vulkan
