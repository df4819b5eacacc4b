// keep_intermediates on the GPU targets (Vulkan, Metal): an activation read back from its
// place (VulkanTensorPlace) is turned into the bytes the host expects of the
// tensor (TensorDesc: its dtype, Bytes, NHWC row-major for C4): C4's
// [N][ceil(C/4)][H][W][4] becomes [N,H,W,C], fp16 storage (the payload's
// fp16) becomes f32, and PLAIN is copied.
#pragma once

#include "loader/TensorDesc.h"

#include <cstdint>

namespace kiln::rt {

/// Writes D.Bytes bytes to Dst from the device bytes of D at Src (at least
/// vulkanPlaceBytes(D, Fp16) of them).
void placeToHost(const TensorDesc &D, bool Fp16, const uint8_t *Src,
                 uint8_t *Dst);

} // namespace kiln::rt
