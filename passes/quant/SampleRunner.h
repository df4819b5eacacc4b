// Running work over calibration samples on threads: each worker takes the
// next sample (from a shared counter, or from a queue that one thread fills
// from a source) and keeps its own state (an interpreter, observers), so
// results do not depend on which thread ran what once the per-worker
// results are merged exactly.
#pragma once

#include "IR/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace kiln {

/// Called from the calling thread a few times a second, and once at the end.
/// Total is ProgressTotalUnknown while a source of samples has not ended.
using ProgressFn = std::function<void(uint64_t Done, uint64_t Total)>;
constexpr uint64_t ProgressTotalUnknown = UINT64_MAX;

/// Threads (0: hardware concurrency) capped by the number of samples; at
/// least 1.
unsigned workerCount(unsigned Threads, uint64_t Samples);

/// Calls Fn(Worker, Sample) for every Sample in [0, Count) on Workers threads
/// (Worker in [0, Workers)). Stops at the first error; when several samples
/// fail, the error of the lowest-numbered one is returned.
llvm::Error runOverSamples(
    uint64_t Count, unsigned Workers,
    const std::function<llvm::Error(unsigned Worker, uint64_t Sample)> &Fn,
    const ProgressFn &Progress = {});

/// Samples read one after another on one thread (a Python iterable's
/// batches, cut into samples): fills Sample and returns true, or returns
/// false at the end.
using CalibrationSampleSource =
    std::function<llvm::Expected<bool>(std::vector<Tensor> &Sample)>;

/// Reads Next on the calling thread and calls Fn(Worker, Index, Sample) for
/// each sample on Workers threads, reading at most 2 * Workers samples
/// ahead of those done, so memory stays flat however many samples come.
/// Stops at the first error: Next's, or that of the lowest-numbered sample
/// that failed. Returns how many samples came.
llvm::Expected<uint64_t> runOverSource(
    unsigned Workers, const CalibrationSampleSource &Next,
    const std::function<llvm::Error(unsigned Worker, uint64_t Index,
                                    llvm::ArrayRef<Tensor> Sample)> &Fn,
    const ProgressFn &Progress = {});

} // namespace kiln
