// Running work over calibration samples on threads: each worker takes the
// next sample from a shared counter and keeps its own state (an interpreter,
// observers), so results do not depend on which thread ran what once the
// per-worker results are merged exactly.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>

namespace kiln {

/// Called from the calling thread a few times a second, and once at the end.
using ProgressFn = std::function<void(uint64_t Done, uint64_t Total)>;

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

} // namespace kiln
