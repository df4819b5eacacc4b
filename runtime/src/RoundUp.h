// Rounding sizes and addresses up to an alignment, for the runtime's
// buffers: the activation arena's slots, the kernels' scratch, the weight
// arena and copied model bytes.
#pragma once

#include <cstdint>

namespace kiln::rt {

/// N rounded up to a multiple of To (To > 0); the caller keeps N + To - 1
/// in range.
constexpr uint64_t roundUp(uint64_t N, uint64_t To) {
  return (N + To - 1) / To * To;
}

} // namespace kiln::rt
