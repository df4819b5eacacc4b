// PIXELS_TO_TENSOR: the camera frame, uploaded as the u8 bytes the app holds
// (the graph input's buffer), converted on the device into the C4 image the
// first convolution reads (kernels/pixels_to_tensor.comp).
#include "backends/gpu/VulkanLowering.h"

namespace kiln::vulkan {

std::string lowerPixelsToTensor(Lowering &L, const fb::OperatorT &Op) {
  const auto &O = *Op.options.AsPixelsToTensorOptions();
  int32_t X = Op.inputs[0], Y = Op.outputs[0];
  const fb::TensorT &Frame = L.tensor(X);
  const Storage &YS = L.storage(Y);
  if (!YS.C4 || YS.Dims.size() != 4)
    return "an image that is not an NHWC activation";
  const std::vector<int64_t> &F = Frame.shape, &I = YS.Dims;
  int64_t Bytes = F[0] * F[1] * F[2] * F[3];
  if (Bytes % 4 != 0)
    return "a frame of " + std::to_string(Bytes) +
           " bytes (the Vulkan target reads frames in 4-byte words; make "
           "the frame's byte count a multiple of 4)";
  auto perChannel = [](const std::vector<float> &V, size_t C) {
    return V.size() == 1 ? V[0] : (C < V.size() ? V[C] : 0.0f);
  };
  PendingDispatch &D = L.dispatch("pixels_to_tensor");
  workgroup(D, 8, 8, 1);
  D.Spec[20] = uint32_t(I[0]);
  D.Spec[21] = uint32_t(I[1]);
  D.Spec[22] = uint32_t(I[2]);
  D.Spec[23] = uint32_t(F[2] * F[3]);
  D.Spec[24] = uint32_t(F[1]);
  D.Spec[25] = uint32_t(O.format);
  D.Spec[26] = uint32_t(I[3]);
  D.Spec[27] = O.channel_bgr ? 1 : 0;
  for (size_t C = 0; C < 3; ++C) {
    D.Spec[uint32_t(28 + C)] = floatBits(perChannel(O.mean, C));
    D.Spec[uint32_t(31 + C)] = floatBits(perChannel(O.scale, C));
  }
  D.Bindings = {L.bindTensor(X), L.bindTensor(Y)};
  D.Groups[0] = uint32_t((I[2] + 7) / 8);
  D.Groups[1] = uint32_t((I[1] + 7) / 8);
  D.Groups[2] = uint32_t(I[0]);
  return "";
}

} // namespace kiln::vulkan
