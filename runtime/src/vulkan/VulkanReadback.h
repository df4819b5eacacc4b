// keep_intermediates on the Vulkan target: an activation read back from its
// place (VulkanTensorPlace) is turned into the bytes the host expects of the
// tensor (TensorDesc: its dtype, Bytes, NHWC row-major for C4): C4's
// [N][ceil(C/4)][H][W][4] becomes [N,H,W,C], fp16 storage (VulkanPayload.fp16)
// becomes f32, and PLAIN is copied.
#pragma once

#include "loader/TensorDesc.h"

#include <cstdint>

namespace kiln::rt::vk {

/// IEEE half to float (every value, subnormals, infinities and NaN).
float halfToFloat(uint16_t H);

/// Writes D.Bytes bytes to Dst from the device bytes of D at Src (at least
/// vulkanPlaceBytes(D, Fp16) of them).
void placeToHost(const TensorDesc &D, bool Fp16, const uint8_t *Src,
                 uint8_t *Dst);

} // namespace kiln::rt::vk
