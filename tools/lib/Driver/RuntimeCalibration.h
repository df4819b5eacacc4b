// Calibration on the kiln runtime: the float graph is lowered for the CPU
// target in memory, and each calibration worker runs it in its own runtime
// session that keeps every intermediate, then reads each graph value from
// the tensor that holds it (NCHW or NHWC: the observers' min, max and
// histogram do not depend on the element order). The same statistics as the
// reference interpreter's up to float rounding, in a fraction of the time
// (oneDNN/XNNPACK kernels instead of portable C++).
#pragma once

#include "passes/quant/Calibrator.h"

namespace kiln {

/// The runtime engine for calibrateGraph; a null engine (the interpreter
/// then runs) when the CPU target cannot run G or a value it observes has
/// no f32 tensor of its size in the lowered model.
llvm::Expected<std::unique_ptr<CalibrationEngine>>
runtimeCalibrationEngine(const Graph &G);

} // namespace kiln
