#include "cpu/MemoryPlanner.h"

#include "RoundUp.h"

#include <algorithm>
#include <numeric>

namespace kiln::rt {

MemoryPlan planMemory(const std::vector<PlannedTensor> &Tensors,
                      uint64_t Alignment, uint64_t Padding) {
  size_t N = Tensors.size();
  std::vector<uint64_t> Slot(N);
  for (size_t I = 0; I < N; ++I)
    Slot[I] = roundUp(Tensors[I].Bytes + Padding, Alignment);
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  // Largest first; ties by first use, then index, so the plan is the same on
  // every run.
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    if (Slot[A] != Slot[B])
      return Slot[A] > Slot[B];
    return Tensors[A].First < Tensors[B].First;
  });

  MemoryPlan Plan;
  Plan.Offsets.assign(N, 0);
  std::vector<size_t> Placed; // sorted by offset
  for (size_t T : Order) {
    uint64_t Offset = 0;
    for (size_t P : Placed) {
      bool Overlaps = Tensors[P].First <= Tensors[T].Last &&
                      Tensors[T].First <= Tensors[P].Last;
      if (!Overlaps)
        continue;
      if (Offset + Slot[T] <= Plan.Offsets[P])
        break; // fits in the gap before P
      Offset = std::max(Offset, Plan.Offsets[P] + Slot[P]);
    }
    Plan.Offsets[T] = Offset;
    Plan.ArenaBytes = std::max(Plan.ArenaBytes, Offset + Slot[T]);
    Placed.insert(std::upper_bound(Placed.begin(), Placed.end(), T,
                                   [&](size_t A, size_t B) {
                                     return Plan.Offsets[A] < Plan.Offsets[B];
                                   }),
                  T);
  }
  return Plan;
}

} // namespace kiln::rt
