// Calibration: runs the float graph in the reference interpreter over the
// samples of a dataset (shard) on threads, one interpreter and one set of
// observers per thread, and merges the observers exactly. Every f32 tensor is
// observed: graph inputs and node results (not constants).
#pragma once

#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/CalibrationStats.h"
#include "passes/quant/SampleRunner.h"

namespace kiln {

struct CalibrationRunOptions {
  /// Threads (0: hardware concurrency); each runs whole samples.
  unsigned Threads = 0;
  uint32_t Bins = TensorObserver::DefaultBins;
  ProgressFn Progress;
};

llvm::Expected<CalibrationStats>
calibrateGraph(const Graph &G, const CalibrationDataset &Data,
               const CalibrationDataOptions &DataOpts,
               const CalibrationRunOptions &Opts);

} // namespace kiln
