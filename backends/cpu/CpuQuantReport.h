// The quantization part of the CPU target's convert report: the mode, the
// quantized tensors and their scales (--json; --stats prints them too),
// constant bytes before and after, and the layers that stay float on the CPU target, with
// the reason: kept float by the quantizer (--keep-float, ...) or no int8
// kernel on the CPU target (they run in f32 between dequantize and quantize).
#pragma once

#include "backends/kilnops/KilnOps.h"
#include "passes/quant/QuantizeGraph.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace kiln {

/// Layers that run in float: in int8 mode every compute node the CPU target
/// did not lower to int8, else the quantizer's own list.
std::vector<FloatLayerReport> floatLayersOnCpu(const QuantizeReport &Q,
                                               const KilnOpsResult &C);

/// How the CPU runtime runs the mode, in one line.
const char *cpuExecutionOf(QuantizeMode M);

void printQuantizeSummary(llvm::raw_ostream &OS, const QuantizeReport &Q,
                          const KilnOpsResult &C,
                          const std::vector<FloatLayerReport> &Float,
                          bool Stats);
llvm::json::Value quantizeJson(const QuantizeReport &Q,
                               const KilnOpsResult &C,
                               const std::vector<FloatLayerReport> &Float);

} // namespace kiln
