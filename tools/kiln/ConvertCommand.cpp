// kiln convert: compiles a model into a file for a target.
//   kiln convert MODEL -o OUT [--target NAME] [-O0|-O1|-O2]
//                [--disable-pass NAME]... [--input-shape ...] [--stats] [--json]
//                [--strip-provenance] [--prepack portable|native]
//                [--nnapi-feature-level 27|28|29|30|31|1000006|auto]
//                [--quantize none|fp16|int8-dynamic|int8 ...] (QuantizeFlags.h)
//                [--fallback none|cpu [--on-cpu PATTERN]... [--max-partitions N]]
//                [--self-test [--self-test-input NAME=FILE.npy]...
//                 [--self-test-tolerance REL]]
// The targets are those of the registry (`kiln targets`); the target's report
// is printed: for cpu, ops before and after the passes, the passes run, the
// runtime operators and their kernels, and the file size. Every node the
// target cannot run is listed in one error (exit 1). A .kiln file is
// verified with the runtime's own loader before it replaces OUT.
#include "Command.h"
#include "Version.h"

#include "Driver/ConvertModel.h"
#include "Driver/ModelLoader.h"
#include "Driver/PassRecord.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {

struct ConvertOptions {
  ConvertModelOptions Model;
  std::string Prepack = "portable";
  std::string NnapiFeatureLevel = "auto";
  bool Stats = false;
  bool Json = false;
};

llvm::Error runConvert(ConvertOptions &O) {
  O.Model.ProducerVersion = KILN_VERSION_STRING;
  O.Model.Compile.KilnVersion = KILN_VERSION_STRING;
  O.Model.TargetOptions["prepack"] = O.Prepack;
  O.Model.TargetOptions["nnapi-feature-level"] = O.NnapiFeatureLevel;
  auto Report = convertModel(O.Model);
  if (!Report)
    return Report.takeError();
  if (O.Json)
    printJson((*Report)->json());
  else
    (*Report)->print(commandOut(), O.Stats);
  return llvm::Error::success();
}

std::string targetHelp() {
  std::vector<std::string> Names;
  for (const Target &T : allTargets())
    Names.push_back(T.Name);
  return "the target: " + llvm::join(Names, ", ") +
         " (default cpu; `kiln targets` describes them)";
}

} // namespace

Command addConvertCommand(CLI::App &App) {
  auto O = std::make_shared<ConvertOptions>();
  CompileGraphOptions &C = O->Model.Compile;
  CLI::App *Sub = App.add_subcommand(
      "convert", "compile a model (.onnx, .pt, .kir) into a .kiln file for "
                 "the kiln runtime, or for another target");
  Sub->add_option("model", C.Input,
                  "the model (.onnx, .pt TorchScript, .kir)")
      ->required();
  Sub->add_option("-o,--output", O->Model.Output, "the file to write (.kiln)")
      ->required();
  Sub->add_option("--target", O->Model.TargetName, targetHelp());
  Sub->add_option("--source-of", O->Model.SourceOf,
                  "record this file (the model the .kir was imported from, as "
                  "kiln build does) as the source: its name and hash")
      ->check(CLI::ExistingFile);
  addOptLevelFlag(*Sub, C.Pipeline, "optimization level 0, 1 or 2 (default 2)");
  addDisablePassFlag(*Sub, C.Pipeline);
  addPassRecordFlag(*Sub, C.PassRecordPath);
  addInputShapeOption(*Sub, C.InputShapes);
  addImageInputFlags(*Sub, C.Image);
  addDetectionFlags(*Sub, C.Nms);
  Sub->add_flag("--stats", O->Stats,
                "also print what each pass did and which kernels (XNNPACK or "
                "reference) run each node");
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  addQuantizeFlags(*Sub, C.Quantize);
  Sub->add_option("--prepack", O->Prepack,
                  "weight layouts: portable (default: XNNPACK's order, the "
                  "same file on every machine) or native (the f32 convolution "
                  "weights in the blocked layout oneDNN's kernels read on this "
                  "CPU, used in place when a session is created; the file "
                  "still runs anywhere)")
      ->check(CLI::IsMember({"portable", "native"}));
  Sub->add_option("--nnapi-feature-level", O->NnapiFeatureLevel,
                  "--target nnapi: the NNAPI feature level the file may use "
                  "(Android API level 27, 28, 29, 30 or 31; 1000006: "
                  "feature level 6, Android 13); auto (default): the lowest "
                  "that can run the model");
  Sub->add_option("--fallback", O->Model.Fallback,
                  "none (default): a node the --target cannot run refuses "
                  "the model; cpu: such nodes run on the CPU, the rest on "
                  "the device, in partitions placed by a cost model and "
                  "reported (docs/targets.md, \"Partitions\")")
      ->check(CLI::IsMember({"none", "cpu"}));
  Sub->add_option("--on-cpu", O->Model.OnCpu,
                  "with --fallback cpu: run these op kinds or node names on "
                  "the CPU (globs: *, ?, [a-z]; repeatable, or "
                  "comma-separated)")
      ->delimiter(',');
  Sub->add_option("--placement", O->Model.Placement,
                  "with --fallback cpu: costed (default: a device partition "
                  "too small to pay for its launch and copies goes to the "
                  "CPU) or greedy (every node the device runs stays there)")
      ->check(CLI::IsMember({"costed", "greedy"}));
  Sub->add_option("--max-partitions", O->Model.MaxPartitions,
                  "with --fallback cpu: a CI gate: more partitions than N "
                  "writes nothing and exits 3");
  Sub->add_flag("--self-test", O->Model.SelfTest.Enabled,
                "store a sample input and its reference outputs in the file, "
                "for kiln_session_self_test (kiln run --self-test) to check "
                "the device (docs/self-test.md)");
  Sub->add_option("--self-test-input", O->Model.SelfTest.Inputs,
                  "NAME=FILE.npy (or FILE.npz): the self-test's sample of "
                  "an input (default: generated; needed for integer inputs)");
  Sub->add_option_function<double>(
      "--self-test-tolerance",
      [O](double V) { O->Model.SelfTest.Tolerance = V; },
      "allowed error relative to each output's peak magnitude (default by "
      "precision: fp32 1e-3, fp16 3e-2, int8 0.1)");
  Sub->add_flag("--strip-provenance", C.StripProvenance,
                "leave out the links to the source model's nodes "
                "(Operator.sources)");
  return {Sub, [O] { return runConvert(*O); }};
}

} // namespace kiln
