// The cost model's constants, per target. They are orders of magnitude for
// a mid-range phone (four big ARM cores running XNNPACK; an Adreno/Mali
// class GPU; an NNAPI accelerator driver), not measurements of this
// machine: docs/targets.md says where each comes from and what lavapipe
// measures instead. What matters to placement is their ratios: a device
// part must save more than its launch and copies cost.
#include "Driver/PlacementCost.h"

#include "Tooling/GraphStats.h"

#include "IR/ElementType.h"

namespace kiln {

namespace {

constexpr TargetCost CpuCost{/*MacsPerUs=*/10000, /*ElementsPerUs=*/1000,
                             /*OperatorUs=*/2, /*LaunchUs=*/0,
                             /*CopyBytesPerUs=*/4000};
constexpr TargetCost VulkanCost{50000, 4000, 8, 200, 2000};
constexpr TargetCost MetalCost{50000, 4000, 6, 150, 2000};
constexpr TargetCost NnapiCost{50000, 4000, 5, 400, 2000};

double elements(const Value &V) {
  double N = 1;
  for (const Dim &D : V.type().Dims)
    N *= D.isStatic() ? double(D.size()) : 1.0;
  return N;
}

} // namespace

const TargetCost &targetCost(llvm::StringRef Name) {
  if (Name == "vulkan")
    return VulkanCost;
  if (Name == "metal")
    return MetalCost;
  if (Name == "nnapi")
    return NnapiCost;
  return CpuCost;
}

double valueBytes(const Value &V) {
  return elements(V) * double(elementSize(V.type().Elem));
}

double nodeCostUs(const Node &N, const TargetCost &C) {
  double Out = 0;
  for (const Value *R : N.results())
    Out += elements(*R);
  return double(estimateMacs(N)) / C.MacsPerUs + Out / C.ElementsPerUs +
         C.OperatorUs;
}

} // namespace kiln
