// keep_intermediates on the GPU targets: which activations a session reads
// back, from which place, and when that place holds the value. The Vulkan
// and Metal executors share this plan and differ only in how they copy.
#pragma once

#include "gpu/GpuBuffersVerifier.h"
#include "loader/LoadedModel.h"

#include "schema/kiln_generated.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::rt {

struct PlannedRead {
  size_t Tensor = 0;
  /// The activation's first place (VulkanPayload.places or MetalPayload's).
  const fb::VulkanTensorPlace *Place = nullptr;
  /// Whether that place is in the ARENA buffer, which later dispatches
  /// overwrite; other buffers (INPUT, OUTPUT, WEIGHTS) keep their bytes
  /// until the run ends.
  bool Arena = false;
  /// The dispatch after which the place holds the value: its operator's
  /// last dispatch, or for an operator with none (a reshape aliasing its
  /// input's place) the last dispatch before it; -1 when no dispatch
  /// before it wrote anything.
  int64_t Ready = -1;
};

/// One entry per operator output with a place, in operator order, but for
/// the tensors Skip names (graph inputs and outputs, read from their own
/// buffers) and places naming no buffer of Buffers. Empty when the payload
/// has no places or no buffers (either may be absent). DispatchOperators:
/// each dispatch's operator (-1: none).
std::vector<PlannedRead>
planGpuReadback(const LoadedModel &Model, const GpuPlaces *Places,
                const GpuBuffers *Buffers,
                const std::vector<int32_t> &DispatchOperators,
                const std::function<bool(size_t Tensor)> &Skip);

} // namespace kiln::rt
