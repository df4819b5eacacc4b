// Writes what placement planned (Placement.h): one part, the file of that
// target as a plain conversion writes it (byte for byte); several, a
// partitioned file (schema 1.13, Target PARTITIONED) whose segments are the
// parts' own files, each compiled by its target and checked by the
// runtime's verifier, and whose payload lists the parts, their boundary
// tensors and the schedule. The report adds `placement` to the target's.
#pragma once

#include "Driver/Placement.h"

#include "backends/Target.h"
#include "passes/quant/QuantizeGraph.h"

#include <memory>

namespace kiln {

struct PartitionedEmit {
  /// --max-partitions: more parts than this is a gate failure (exit 3),
  /// and nothing is written; 0: no gate.
  unsigned MaxPartitions = 0;
  QuantizeMode Mode = QuantizeMode::None;
};

llvm::Expected<std::unique_ptr<TargetReport>>
emitPlacement(const Graph &G, const Placement &P, const EmitRequest &R,
              const PartitionedEmit &O);

} // namespace kiln
