// Offsets in one arena for buffers with lifetimes: two buffers whose
// lifetimes (first and last dispatch using them) overlap never overlap in
// memory. Largest first, each at the lowest aligned offset that fits
// (the greedy-by-size heuristic of TFLite's and MNN's planners).
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::vulkan {

struct ArenaRequest {
  uint64_t Bytes = 0;
  uint32_t First = 0, Last = 0; // dispatch indices, inclusive
};

/// Offsets (multiples of Alignment) for each request, and the arena's size.
std::vector<uint64_t> planArena(const std::vector<ArenaRequest> &Requests,
                                uint64_t Alignment, uint64_t &ArenaBytes);

} // namespace kiln::vulkan
