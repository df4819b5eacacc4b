// Load -> pipeline -> quantize: the part of compiling a model that `kiln
// convert`, `kiln opt` and `kiln calibrate` share. The model is read by its
// extension (ModelLoader.h), the target's pipeline runs (PipelineFlags.h),
// then the quantizer, whose rewrite passes run through a pass manager of
// their own with the same verification and printing; the result is
// verified. Everything the flags can get wrong is reported before the
// (possibly large) model is read.
#pragma once

#include "Driver/DetectionFlags.h"
#include "Driver/ImageInputFlags.h"
#include "Driver/PipelineFlags.h"
#include "Driver/QuantizeFlags.h"

#include "IR/Graph.h"
#include "backends/Target.h"
#include "passes/PassManager.h"
#include "passes/quant/QuantizeGraph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct CompileGraphOptions {
  std::string Input;
  const Target *ForTarget = nullptr; // its pipeline; cpu when null
  PipelineFlags Pipeline;
  /// The target's own options, which may leave passes of its pipeline out
  /// (Target::PassesNotNeeded) or swap them for variants
  /// (Target::PassVariants). Its "quantize" entry, when set, overrides the
  /// mode the variants are chosen for (pipelineTargetOptions).
  std::map<std::string, std::string> TargetOptions;
  std::vector<std::string> InputShapes;
  QuantizeFlags Quantize;
  /// Camera-frame inputs and mask outputs, applied after quantization (the
  /// calibration data are the model's own float inputs).
  ImageInputFlags Image;
  /// --nms: post-processing appended to a YOLO-style output, in float.
  std::string Nms;
  /// Verification and IR printing after each pass (`kiln opt`).
  PassManagerOptions PassOptions;
  /// Drop the links to the source model's nodes once the passes and the
  /// quantizer, which report with them, are done.
  bool StripProvenance = false;
  /// --pass-record: Input is a .kir that `kiln opt --pass-record` wrote
  /// after running this pipeline (PassRecord.h): it is checked, not run
  /// again, and its record stands for the run.
  std::string PassRecordPath;
  /// The running kiln's version, which a pass record must have been
  /// written by.
  std::string KilnVersion;
};

using OpHistogram = std::map<std::string, int64_t>;

struct CompiledGraph {
  std::unique_ptr<Graph> G;
  /// The pipeline's passes, and the quantizer's (insert-qdq), each with
  /// their records.
  std::unique_ptr<PassManager> Pipeline, QuantizePasses;
  /// What the pipeline did (its label and passes): Pipeline's records, or
  /// those of the pass record the model came with.
  std::string PipelineLabel;
  std::vector<PassSummary> PipelineRun;
  QuantizeOptions Quantize;
  QuantizeReport QuantizeResult;
  /// Ops (constants excluded) as loaded and after quantization.
  OpHistogram OpsBefore, OpsAfter;
};

/// The options a target's pipeline is chosen by: TargetOptions, plus
/// "quantize" (none, fp16, int8, int8-dynamic) from Quantize's mode unless
/// TargetOptions names it already (`kiln calibrate`: int8, the graph it
/// describes; `kiln opt --pass-record`: "later", for a later command's).
std::map<std::string, std::string>
pipelineTargetOptions(const CompileGraphOptions &O);

/// Checks the flags; call before anything slow.
llvm::Error checkCompileFlags(const CompileGraphOptions &O);

llvm::Expected<CompiledGraph> compileGraph(const CompileGraphOptions &O);

/// Op name -> count, constants excluded.
OpHistogram opHistogram(const Graph &G);

/// The records of both pass managers as the targets' reports take them.
std::vector<PassSummary> passSummaries(const PassManager &PM);

} // namespace kiln
