// The arena planner: tensors alive at the same time never overlap, tensors
// that are not may share bytes, and slots are aligned and padded.
#include "cpu/MemoryPlanner.h"

#include <catch2/catch.hpp>

using namespace kiln::rt;

namespace {

bool overlap(const MemoryPlan &P, const std::vector<PlannedTensor> &T,
             size_t A, size_t B, uint64_t Slot) {
  return P.Offsets[A] < P.Offsets[B] + Slot && P.Offsets[B] < P.Offsets[A] + Slot;
}

} // namespace

TEST_CASE("a chain of operators needs two slots", "[planner]") {
  // t0 -> op0 -> t1 -> op1 -> t2 -> op2 -> t3: each tensor lives from its
  // writer to its reader.
  std::vector<PlannedTensor> T = {{100, 0, 0}, {100, 0, 1}, {100, 1, 2},
                                  {100, 2, 3}};
  MemoryPlan P = planMemory(T, 64, 0);
  REQUIRE(P.ArenaBytes == 2 * 128);
  REQUIRE(P.Offsets[0] != P.Offsets[1]);
  REQUIRE(P.Offsets[1] != P.Offsets[2]);
  REQUIRE(P.Offsets[0] == P.Offsets[2]);
  REQUIRE(P.Offsets[1] == P.Offsets[3]);
}

TEST_CASE("tensors alive together never overlap", "[planner]") {
  std::vector<PlannedTensor> T = {{1000, 0, 5}, {10, 1, 2}, {500, 2, 4},
                                  {700, 3, 6},  {64, 0, 6}, {300, 5, 6}};
  MemoryPlan P = planMemory(T, 64, 16);
  for (size_t A = 0; A < T.size(); ++A) {
    REQUIRE(P.Offsets[A] % 64 == 0);
    for (size_t B = A + 1; B < T.size(); ++B) {
      bool Alive = T[A].First <= T[B].Last && T[B].First <= T[A].Last;
      uint64_t SlotA = (T[A].Bytes + 16 + 63) / 64 * 64;
      uint64_t SlotB = (T[B].Bytes + 16 + 63) / 64 * 64;
      bool Disjoint = P.Offsets[A] + SlotA <= P.Offsets[B] ||
                      P.Offsets[B] + SlotB <= P.Offsets[A];
      if (Alive)
        REQUIRE(Disjoint);
    }
  }
  uint64_t Sum = 0;
  for (const PlannedTensor &X : T)
    Sum += (X.Bytes + 16 + 63) / 64 * 64;
  REQUIRE(P.ArenaBytes < Sum); // something was shared
}

TEST_CASE("padding is part of every slot", "[planner]") {
  std::vector<PlannedTensor> T = {{64, 0, 1}, {64, 1, 2}};
  MemoryPlan P = planMemory(T, 64, 16);
  REQUIRE(P.ArenaBytes == 256); // 64 + 16 rounds up to 128, twice
  REQUIRE(!overlap(P, T, 0, 1, 128));
}

TEST_CASE("the plan is deterministic", "[planner]") {
  std::vector<PlannedTensor> T;
  for (int I = 0; I < 50; ++I)
    T.push_back({uint64_t((I * 37) % 11) * 64, I % 7, I % 7 + I % 3});
  MemoryPlan A = planMemory(T, 64, 0), B = planMemory(T, 64, 0);
  REQUIRE(A.Offsets == B.Offsets);
  REQUIRE(A.ArenaBytes == B.ArenaBytes);
}
