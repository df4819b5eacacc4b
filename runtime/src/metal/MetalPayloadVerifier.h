// The loader's checks of a Metal file's payload (schema 1.7,
// fb::MetalPayload), run in every build, so that tools read Metal files
// anywhere and the Apple executor gets only a checked payload: every
// kernel has MSL, an entry point that is an identifier, distinct buffer
// indices within Metal's 31 slots, sorted function constants, and a
// threadgroup size set by literals or by its own constants; every dispatch
// names a kernel, binds one in-bounds range per storage buffer, sets only
// the kernel's function constants, passes the push-constant block's exact
// bytes, and has a threadgroup size that is the one its constants give
// (at most 1024 threads) and a grid within limits; buffers and places are
// checked as for Vulkan (GpuBuffersVerifier.h).
#pragma once

#include "Status.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt {

struct TensorDesc;

Status verifyMetalPayload(const fb::Model &M,
                          const std::vector<TensorDesc> &Tensors);

} // namespace kiln::rt
