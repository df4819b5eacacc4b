// What `kiln convert --target cpu` prints: the ops before and after the
// passes, the runtime operators and their engines, the file and weight
// sizes, native prepacking, the quantization summary, and with --stats what
// each pass did and which kernels run each node; or all of it as JSON.
#pragma once

#include "backends/Target.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/cpu/NativePrepack.h"

#include "passes/quant/QuantizeGraph.h"

#include <memory>

namespace kiln {

struct CpuConvertFacts {
  /// Copies: the report outlives the driver's request.
  EmitRequest Request;
  QuantizeReport Quantize;
  std::string Prepack; // portable | native
  PrepackReport Prepacked;
  uint64_t FileBytes = 0;
  uint64_t SourceHash = 0;
};

std::unique_ptr<TargetReport> makeCpuConvertReport(KilnOpsResult Compiled,
                                                   CpuConvertFacts Facts);

} // namespace kiln
