#include "backends/gpu/ArenaPlanner.h"

#include <algorithm>
#include <numeric>

namespace kiln::vulkan {

std::vector<uint64_t> planArena(const std::vector<ArenaRequest> &Requests,
                                uint64_t Alignment, uint64_t &ArenaBytes) {
  std::vector<size_t> Order(Requests.size());
  std::iota(Order.begin(), Order.end(), 0);
  // Largest first; ties by index, so the plan is deterministic.
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Requests[A].Bytes > Requests[B].Bytes;
  });
  std::vector<uint64_t> Offsets(Requests.size(), 0);
  std::vector<size_t> Placed;
  ArenaBytes = 0;
  for (size_t I : Order) {
    const ArenaRequest &R = Requests[I];
    uint64_t Size = (R.Bytes + Alignment - 1) / Alignment * Alignment;
    // The placed buffers alive at the same time, by offset.
    std::vector<size_t> Live;
    for (size_t J : Placed)
      if (Requests[J].First <= R.Last && R.First <= Requests[J].Last)
        Live.push_back(J);
    std::sort(Live.begin(), Live.end(), [&](size_t A, size_t B) {
      return Offsets[A] < Offsets[B];
    });
    uint64_t Offset = 0;
    for (size_t J : Live) {
      if (Offset + Size <= Offsets[J])
        break;
      uint64_t End = Offsets[J] + (Requests[J].Bytes + Alignment - 1) /
                                      Alignment * Alignment;
      Offset = std::max(Offset, End);
    }
    Offsets[I] = Offset;
    ArenaBytes = std::max(ArenaBytes, Offset + Size);
    Placed.push_back(I);
  }
  return Offsets;
}

} // namespace kiln::vulkan
