#include "Driver/CalibrateModel.h"

#include "Driver/ProgressBar.h"

#include "Support/Error.h"
#include "Support/Scratch.h"
#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/Calibrator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kiln {

namespace {

/// Every sample allocates and frees the same activation and im2col buffers.
/// glibc would map the large ones afresh each time and trim the heap after
/// them; the page faults were measured to be a noticeable part of the run on
/// the example ResNet (docs/benchmarks.md has the figures).
/// Keeping them on the heap bounds memory by the largest sample's, as before.
void keepSampleBuffersOnHeap() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/// The graph `--quantize int8` calibrates (QuantizeGraph.cpp), so that the
/// statistics' fingerprint matches it.
llvm::Expected<CompiledGraph> compileForCalibration(const CompileGraphOptions &In) {
  CompileGraphOptions CO = In;
  CO.PassOptions.VerifyEach = verifyEachByDefault();
  CO.TargetOptions["quantize"] = "int8"; // the pipeline --quantize int8 runs
  auto C = compileGraph(CO);
  if (!C)
    return C.takeError();
  if (llvm::Error E = C->Pipeline->runPass("unfuse-int8-activations", *C->G))
    return E;
  return C;
}

CalibrationRunOptions runOptions(const CalibrationFlags &F) {
  CalibrationRunOptions RO;
  RO.Threads = F.Threads;
  RO.Bins = F.Bins;
  RO.Progress = makeProgressBar("calibrating");
  RO.Engine = calibrationEngine(F);
  return RO;
}

llvm::Error checkPipelineChoice(const PipelineFlags &P) {
  if (P.OptLevel >= 0 && !P.Passes.empty())
    return usageError("give either -O<level> or --passes, not both");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<CalibrationStats> calibrateModel(const CalibrateModelOptions &O) {
  if (llvm::Error E = checkPipelineChoice(O.Compile.Pipeline))
    return E;
  if (O.Calib.Path.empty())
    return usageError("kiln calibrate needs --calib DATA (or --merge FILES)");
  auto DataOpts = makeCalibrationDataOptions(O.Calib);
  if (!DataOpts)
    return DataOpts.takeError();
  if (!O.Shard.empty())
    if (llvm::Error E = parseShardSpec(O.Shard, DataOpts->ShardIndex,
                                       DataOpts->ShardCount))
      return E;
  WeightSpillScope Spill(""); // the caller's scratch folder
  auto C = compileForCalibration(O.Compile);
  if (!C)
    return C.takeError();
  auto Data = CalibrationDataset::open(*C->G, *DataOpts);
  if (!Data)
    return Data.takeError();
  keepSampleBuffersOnHeap();
  return calibrateGraph(*C->G, **Data, *DataOpts, runOptions(O.Calib));
}

llvm::Expected<CalibrationStats>
calibrateModelFromSource(const CalibrateModelOptions &O,
                         const ModelSampleSource &Next) {
  if (llvm::Error E = checkPipelineChoice(O.Compile.Pipeline))
    return E;
  if (!O.Calib.Path.empty() || !O.Shard.empty())
    return usageError("calibration from a source of samples takes no "
                      "calibration files or shard");
  auto C = compileForCalibration(O.Compile);
  if (!C)
    return C.takeError();
  keepSampleBuffersOnHeap();
  const Graph &G = *C->G;
  auto Source = [&](std::vector<Tensor> &Sample) { return Next(G, Sample); };
  return calibrateGraphFromSource(G, Source, runOptions(O.Calib));
}

} // namespace kiln
