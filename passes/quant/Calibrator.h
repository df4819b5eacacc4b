// Calibration: runs the float graph over the samples of a dataset (shard)
// on threads, one executor and one set of observers per thread, and merges
// the observers exactly. Every f32 tensor is observed: graph inputs and node
// results (not constants). The executor is the reference interpreter, or an
// engine the caller plugs in (the CLI's: the kiln runtime on the CPU
// target's lowering of the same graph, tools/kiln/RuntimeCalibration.h).
#pragma once

#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/CalibrationStats.h"
#include "passes/quant/SampleRunner.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace kiln {

/// Runs one sample through the float graph and hands every node result it
/// computed to Observe (f32 data, element count); one per worker thread.
class SampleExecutor {
public:
  using ObserveFn =
      llvm::function_ref<void(const Value *V, const float *Data, size_t N)>;
  virtual ~SampleExecutor() = default;
  virtual llvm::Error run(llvm::ArrayRef<Tensor> Inputs, ObserveFn Observe) = 0;
};

/// An engine prepared for one graph, which makes the workers' executors.
class CalibrationEngine {
public:
  virtual ~CalibrationEngine() = default;
  virtual llvm::Expected<std::unique_ptr<SampleExecutor>> newExecutor() = 0;
  /// What runs the samples, and where, for the statistics' Engine (asked
  /// after the executors are made).
  virtual std::string name() const = 0;
};

/// Prepares an engine for G; a null engine (not an error) when it cannot
/// run G, and the reference interpreter does.
using CalibrationEngineFactory =
    std::function<llvm::Expected<std::unique_ptr<CalibrationEngine>>(
        const Graph &G)>;

struct CalibrationRunOptions {
  /// Threads (0: hardware concurrency); each runs whole samples.
  unsigned Threads = 0;
  uint32_t Bins = TensorObserver::DefaultBins;
  ProgressFn Progress;
  /// Empty: the reference interpreter.
  CalibrationEngineFactory Engine;
};

llvm::Expected<CalibrationStats>
calibrateGraph(const Graph &G, const CalibrationDataset &Data,
               const CalibrationDataOptions &DataOpts,
               const CalibrationRunOptions &Opts);

/// The same over samples that come one after another (Next, read on the
/// calling thread): statistics equal to calibrateGraph's over the same
/// samples from files, with memory that does not grow with their number.
llvm::Expected<CalibrationStats>
calibrateGraphFromSource(const Graph &G, const CalibrationSampleSource &Next,
                         const CalibrationRunOptions &Opts);

} // namespace kiln
