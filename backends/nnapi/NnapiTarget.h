// The NNAPI target (Android's Neural Networks API): the CPU target's
// lowering to kiln operators, then NnapiLowering.h's lowering of those to
// an NNAPI model stored in the file, run by the kiln runtime's NNAPI
// executor (runtime/src/nnapi/) through libneuralnetworks.so.
#pragma once

#include "backends/common/KilnModule.h"

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

struct NnapiCompileResult {
  KilnModule Module;
  /// The level the file needs, and the one it was lowered for.
  int32_t FeatureLevel = 0, LoweredLevel = 0;
  bool Relaxed = false;
  size_t Operands = 0, Operations = 0, HostOperators = 0;
  /// NNAPI operation name -> count.
  std::map<std::string, int64_t> OperationCounts;
  /// Why each operator between QUANTIZE/DEQUANTIZE operations inside the
  /// NNAPI model left int8 ("node 'name' (KIND): why").
  std::vector<std::string> FloatIslands;
};

/// Lowers G for NNAPI at FeatureLevel (27..31 or 1000006: one of
/// nnapi::FeatureLevels), or, with 0, at the lowest
/// level that can express it. Every operator it cannot lower is listed in
/// one bad-input error.
llvm::Expected<NnapiCompileResult> compileForNnapi(const Graph &G,
                                                   int32_t FeatureLevel,
                                                   bool RelaxFp16);
std::vector<std::string> nnapiSupportedOps();
llvm::Error checkNnapiGraph(const Graph &G);

} // namespace kiln
