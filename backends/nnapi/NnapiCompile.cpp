// compileForNnapi: the CPU target's lowering, then the NNAPI lowering at
// the requested feature level or the lowest that works.
#include "backends/nnapi/NnapiTarget.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"
#include "Support/Error.h"

#include <algorithm>

namespace kiln {

std::vector<std::string> nnapiSupportedOps() {
  // The IR ops whose kiln operators have no NNAPI lowering (cast runs
  // from int32 or bool to f32, the comparisons on int32 or f32:
  // docs/targets.md). matmul runs through expand-matmul below feature
  // level 6 and as BATCH_MATMUL at it, but not in every form at every
  // level: it stays listed as missing.
  static const char *const Missing[] = {
      "argmax", "argmin", "dynamic_quantize", "gru",
      "layer_norm", "matmul", "where", "expand", "erf",
      "gelu", "mish", "softplus", "round", "sign", "celu", "selu",
      "ceil", "tile"};
  std::vector<std::string> Ops;
  for (const std::string &Op : kilnOpsSupportedOps())
    if (std::find(std::begin(Missing), std::end(Missing), Op) ==
        std::end(Missing))
      Ops.push_back(Op);
  return Ops;
}

llvm::Expected<NnapiCompileResult>
compileForNnapi(const Graph &G, int32_t FeatureLevel, bool RelaxFp16) {
  if (FeatureLevel && !nnapi::isFeatureLevel(FeatureLevel))
    return usageError("NNAPI feature level {0} is not one kiln knows (27, 28, "
                      "29, 30, 31 or 1000006)",
                      FeatureLevel);
  int32_t First = FeatureLevel ? FeatureLevel : nnapi::FeatureLevelMin;
  int32_t Last = FeatureLevel ? FeatureLevel : nnapi::FeatureLevelMax;
  llvm::Error Failure = llvm::Error::success();
  // The int8 tables and MUL stay int8 operators, which the NNAPI lowering
  // maps to NNAPI's int8 operations (LOGISTIC and TANH into their fixed
  // parameters, then requantized); biases keep their scales, which NNAPI's
  // bias operands carry.
  LoweringOptions Opts;
  Opts.Int8Elementwise = true;
  Opts.OmitInt8BiasScales = false;
  for (int32_t Level : nnapi::FeatureLevels) {
    if (Level < First || Level > Last)
      continue;
    auto Lowered = lowerToKilnOps(G, Opts);
    if (!Lowered) {
      llvm::consumeError(std::move(Failure));
      return Lowered.takeError();
    }
    nnapi::Lowering L(Lowered->Module, {Level, RelaxFp16});
    if (llvm::Error E = L.run()) {
      // Keep the error of the highest level tried: it lists only what no
      // level can run.
      llvm::consumeError(std::move(Failure));
      Failure = std::move(E);
      continue;
    }
    llvm::consumeError(std::move(Failure));
    NnapiCompileResult R;
    R.Module = std::move(Lowered->Module);
    R.FeatureLevel = L.neededLevel();
    R.LoweredLevel = Level;
    R.Relaxed = RelaxFp16;
    const auto *P = R.Module.Model.payload.AsNnapiPayload();
    R.Operands = P->operands.size();
    R.Operations = P->operations.size();
    R.HostOperators = P->host_before.size() + P->host_after.size();
    for (const auto &Op : P->operations)
      R.OperationCounts[nnapi::findOperation(Op->type)->Name] += 1;
    R.FloatIslands = L.floatIslands();
    R.Module.Model.target = fb::Target::NNAPI;
    if (R.Module.Model.metadata)
      R.Module.Model.metadata->target = "nnapi";
    return R;
  }
  return Failure;
}

llvm::Error checkNnapiGraph(const Graph &G) {
  // At the highest Android API level, not at feature level 6: a graph is
  // checked without the target's options (the partitioner's placement
  // among them), and an operator that only level 6 runs (BATCH_MATMUL)
  // would be placed on a file of a lower level. At level 6 such operators
  // stay on the CPU under --fallback.
  auto R = compileForNnapi(G, nnapi::FeatureLevel5, false);
  return R ? llvm::Error::success() : R.takeError();
}

} // namespace kiln
