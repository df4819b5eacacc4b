// Places every activation of a model in one arena. Tensors whose lifetimes
// (from the operator that writes them to the last one that reads them) do
// not overlap may share bytes. Greedy by size, as TFLite's arena planner:
// the largest tensors are placed first, each at the lowest offset that does
// not collide with an already placed tensor alive at the same time.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln::rt {

struct PlannedTensor {
  uint64_t Bytes = 0;
  /// Operator indices: written by First, last read by Last (inclusive).
  int64_t First = 0, Last = 0;
};

struct MemoryPlan {
  /// Arena offset of each tensor (multiples of Alignment).
  std::vector<uint64_t> Offsets;
  uint64_t ArenaBytes = 0;
};

/// Plans Tensors; each slot is Bytes + Padding rounded up to Alignment.
MemoryPlan planMemory(const std::vector<PlannedTensor> &Tensors,
                      uint64_t Alignment, uint64_t Padding);

} // namespace kiln::rt
