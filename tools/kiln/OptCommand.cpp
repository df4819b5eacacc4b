// kiln opt: runs passes over a .kir graph and prints or writes the result.
//   kiln opt MODEL [-O0|-O1|-O2] [--passes=a,b] [--disable-pass NAME]...
//            [--print-ir-after-all] [--print-ir-after=NAME] [--stats]
//            [--print-weights] [--strip-provenance] [-o OUT.kir] [--json]
//            [--quantize none|fp16|int8-dynamic|int8 ...] (QuantizeFlags.h):
//            the graph is quantized after the passes
#include "Command.h"
#include "KirPairWriter.h"
#include "Support/Json.h"
#include "Version.h"

#include "Driver/CompileGraph.h"
#include "Driver/ModelLoader.h"
#include "Driver/PassRecord.h"
#include "IR/Printer.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "Support/Scratch.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

namespace kiln {

namespace {
struct OptOptions {
  CompileGraphOptions Compile;
  std::string TargetName = "cpu";
  std::string Output;
  std::string PassRecordOut;
  bool Stats = false;
  bool PrintWeights = false;
  bool Json = false;
};

void printStats(const PassManager &PM, llvm::raw_ostream &OS) {
  for (const PassRunRecord &R : PM.records()) {
    OS << R.Name << ":";
    if (R.Stats.counts().empty())
      OS << " no change";
    for (const auto &[What, N] : R.Stats.counts())
      OS << ' ' << N << ' ' << What;
    OS << '\n';
  }
}

/// --pass-record records the pipeline and nothing after it: what a later
/// command adds (quantization, image inputs, NMS) it adds itself.
llvm::Error checkPassRecordFlags(const OptOptions &O) {
  const CompileGraphOptions &C = O.Compile;
  if (O.PassRecordOut.empty())
    return llvm::Error::success();
  if (O.Output.empty())
    return usageError("--pass-record records the .kir it is written with: "
                      "add -o OUT.kir");
  if (C.Quantize.Mode != "none" || C.Image.any() || !C.Nms.empty() ||
      C.StripProvenance)
    return usageError("--pass-record records the pipeline's passes only: "
                      "give --quantize, --image-input, --argmax-output, --nms "
                      "and --strip-provenance to the command that reads the "
                      ".kir");
  return llvm::Error::success();
}

/// The record of C's pipeline run, once its .kir is written to Kir.
llvm::Error writePassRecord(const OptOptions &O, const CompiledGraph &C) {
  PassRecord R;
  R.Kiln = KILN_VERSION_STRING;
  R.Target = O.TargetName;
  R.Pipeline = C.PipelineLabel;
  R.Passes = C.PipelineRun;
  R.OpsBefore = C.OpsBefore;
  auto Hash = irFileHash(O.Output);
  if (!Hash)
    return Hash.takeError();
  R.IrHash = *Hash;
  return writeFileAtomically(
      O.PassRecordOut, formatJson(passRecordJson(R)) + "\n");
}

llvm::Error runOpt(OptOptions &O) {
  O.Compile.ForTarget = findTarget(O.TargetName);
  if (!O.Compile.ForTarget)
    return unknownTargetError(O.TargetName);
  if (llvm::Error E = checkPassRecordFlags(O))
    return E;
  O.Compile.PassOptions.VerifyEach |= verifyEachByDefault();
  // The command that reads a recorded .kir quantizes it: the pipeline is the
  // one every quantization mode continues from (Target::PassVariants).
  if (!O.PassRecordOut.empty())
    O.Compile.TargetOptions["quantize"] = "later";
  // As convert: weights the passes make go to a scratch file, beside the
  // output when there is one (Support/Scratch.h).
  WeightSpillScope Spill(O.Output);
  auto C = compileGraph(O.Compile);
  if (!C)
    return C.takeError();
  const PassManager &PM = *C->Pipeline;
  const std::string &Input = O.Compile.Input;
  auto &G = C->G;
  const QuantizeOptions *QuantOpts = &C->Quantize;
  const QuantizeReport &QReport = C->QuantizeResult;

  if (O.Stats) {
    printStats(PM, llvm::errs());
    printStats(*C->QuantizePasses, llvm::errs()); // insert-qdq
  }
  if (O.Stats && QuantOpts->Mode != QuantizeMode::None)
    printQuantizeReport(QReport, llvm::errs());

  PrintOptions PO;
  PO.PrintAllWeights = O.PrintWeights;
  WeightsSidecar Sidecar;
  if (!O.Output.empty()) {
    PO.Sidecar = &Sidecar;
    std::string Text = printGraphToString(*G, PO);
    if (llvm::Error E = writeKirPair(O.Output, Text, Sidecar))
      return E;
    if (!O.PassRecordOut.empty())
      if (llvm::Error E = writePassRecord(O, *C))
        return E;
  } else if (!O.Json) {
    printGraph(*G, commandOut(), PO);
  }

  if (O.Json) {
    llvm::json::Array Passes;
    for (const PassRunRecord &R : PM.records()) {
      llvm::json::Object Counts;
      for (const auto &[What, N] : R.Stats.counts())
        Counts[What] = N;
      Passes.push_back(llvm::json::Object{
          {"name", R.Name}, {"changed", R.Changed}, {"stats", std::move(Counts)}});
    }
    // Op histogram of the result, constants included (sorted by name).
    std::map<std::string, int64_t> Hist;
    for (const Node &N : G->nodes())
      ++Hist[N.opName().str()];
    llvm::json::Object Ops;
    for (const auto &[Op, N] : Hist)
      Ops[Op] = N;
    llvm::json::Object Report{{"input", Input},
                              {"passes", std::move(Passes)},
                              {"nodes", int64_t(G->numNodes())},
                              {"ops", std::move(Ops)}};
    if (QuantOpts->Mode != QuantizeMode::None)
      Report["quantize"] = quantizeReportToJson(QReport);
    if (!O.Output.empty())
      Report["output"] = O.Output;
    else
      Report["ir"] = printGraphToString(*G, PO);
    printJson(std::move(Report));
  }
  return llvm::Error::success();
}
} // namespace

Command addOptCommand(CLI::App &App) {
  auto O = std::make_shared<OptOptions>();
  CompileGraphOptions &C = O->Compile;
  CLI::App *Sub = App.add_subcommand("opt", "run optimization passes on a model and print or write its .kir");
  Sub->add_option("input", C.Input, "the model (.kir, .onnx or .pt TorchScript)")->required();
  addInputShapeOption(*Sub, C.InputShapes);
  addImageInputFlags(*Sub, C.Image);
  addDetectionFlags(*Sub, C.Nms);
  Sub->add_option("-o,--output", O->Output,
                  "write the result here (large weights go to OUT.weights)");
  Sub->add_option("--target", O->TargetName,
                  "run this target's pipeline (default cpu; `kiln targets` "
                  "lists each one's passes)");
  Sub->add_option("--pass-record", O->PassRecordOut,
                  "with -o: also write what the pipeline did (JSON), so that "
                  "kiln convert and calibrate --pass-record FILE take the "
                  ".kir without running it again");
  addOptLevelFlag(*Sub, C.Pipeline, "optimization level 0, 1 or 2 (default 2)");
  addPassesFlag(*Sub, C.Pipeline, "run exactly these passes, in order");
  addDisablePassFlag(*Sub, C.Pipeline);
  Sub->add_flag("--print-ir-after-all", C.PassOptions.PrintAfterAll,
                "print the IR to stderr after every pass");
  Sub->add_option("--print-ir-after", C.PassOptions.PrintAfter,
                  "print the IR to stderr after this pass (repeatable)");
  Sub->add_flag("--stats", O->Stats, "print what each pass did to stderr");
  Sub->add_flag("--verify-each", C.PassOptions.VerifyEach, "verify the IR after every pass");
  Sub->add_flag("--print-weights", O->PrintWeights, "print every weight inline");
  Sub->add_flag("--strip-provenance", C.StripProvenance,
                "drop the links to the source model's nodes (loc(...))");
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  addQuantizeFlags(*Sub, C.Quantize);
  return {Sub, [O] { return runOpt(*O); }};
}

} // namespace kiln
