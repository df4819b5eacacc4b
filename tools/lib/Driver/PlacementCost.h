// The cost model placement uses to decide whether a device part pays for
// itself (docs/targets.md, "Partitions", states the constants and where
// they come from). A node costs its multiply-accumulates at the target's
// rate, plus its output elements at the target's rate for memory-bound
// work, plus a fixed cost per operator (a kernel call on the CPU, a
// dispatch on a GPU). A device part also pays a launch (submit and wait)
// and its boundary bytes, each copied once and converted between the host
// layout and the device's (NCHW <-> C4 or NHWC, fp32 <-> fp16).
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/StringRef.h"

namespace kiln {

struct TargetCost {
  double MacsPerUs;     // compute-bound rate
  double ElementsPerUs; // memory-bound rate (output elements)
  double OperatorUs;    // fixed cost per operator
  double LaunchUs;      // per run of a part on the target (0 on the CPU)
  double CopyBytesPerUs; // boundary copy and layout conversion
};

/// The constants of target Name ("cpu", "vulkan", "metal", "nnapi").
const TargetCost &targetCost(llvm::StringRef Name);

/// One run of N on a target with cost C, in microseconds.
double nodeCostUs(const Node &N, const TargetCost &C);

/// Bytes of V's static shape (dims that are not static count as 1).
double valueBytes(const Value &V);

} // namespace kiln
