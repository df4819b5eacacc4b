// kiln opt: runs passes over a .kir graph and prints or writes the result.
//   kiln opt MODEL [-O0|-O1|-O2] [--passes=a,b] [--disable-pass NAME]...
//            [--print-ir-after-all] [--print-ir-after=NAME] [--stats]
//            [--print-weights] [--strip-provenance] [-o OUT.kir] [--json]
//            [--quantize none|fp16|int8-dynamic|int8 ...] (QuantizeFlags.h):
//            the graph is quantized after the passes
#include "Command.h"

#include "ModelLoader.h"
#include "QuantizeFlags.h"
#include "IR/Printer.h"
#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

namespace kiln {

namespace {
struct OptOptions {
  std::string Input;
  std::string Output;
  int OptLevel = -1; // -1: --passes or the default level
  std::vector<std::string> Passes;
  std::vector<std::string> Disabled;
  bool PrintAfterAll = false;
  std::vector<std::string> PrintAfter;
  bool Stats = false;
  bool VerifyEach = false;
  bool PrintWeights = false;
  bool StripProvenance = false;
  bool Json = false;
  std::vector<std::string> InputShapes;
  QuantizeFlags Quantize;
};

llvm::Error runOpt(const OptOptions &O) {
  if (O.OptLevel >= 0 && !O.Passes.empty())
    return usageError("give either -O<level> or --passes, not both");
  for (const std::string &D : O.Disabled)
    if (!findPass(D))
      return usageError("--disable-pass: unknown pass '{0}'", D);
  PassManagerOptions PMO;
  PMO.VerifyEach = O.VerifyEach || verifyEachByDefault();
  PMO.PrintAfterAll = O.PrintAfterAll;
  PMO.PrintAfter = O.PrintAfter;
  PassManager PM(PMO);
  std::vector<std::string> Pipeline =
      O.Passes.empty() ? pipelineForLevel(O.OptLevel < 0 ? 2 : O.OptLevel)
                       : O.Passes;
  for (const std::string &Name : Pipeline)
    if (std::find(O.Disabled.begin(), O.Disabled.end(), Name) == O.Disabled.end())
      if (llvm::Error E = PM.add(Name))
        return E;
  auto QuantOpts = makeQuantizeOptions(O.Quantize);
  if (!QuantOpts)
    return QuantOpts.takeError();
  // Pass names are checked before the (possibly large) model is read.
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();
  auto G = loadModel(O.Input, *LoadOpts);
  if (!G)
    return G.takeError();
  if (llvm::Error E = PM.run(**G))
    return addContext(std::move(E), O.Input);
  // Quantization comes after every pass, fusion included (conv+relu
  // quantizes as one op).
  QuantizeReport QReport;
  if (llvm::Error E = quantizeGraph(**G, *QuantOpts, QReport))
    return addContext(std::move(E), O.Input);
  if (llvm::Error E = verifyGraph(**G))
    return internalError("{0}: the optimized graph does not verify:\n{1}",
                         O.Input, toString(std::move(E)));
  // The links back to the source model (loc(...)) go last, so that the
  // passes and the quantizer still had them for their reports.
  if (O.StripProvenance)
    for (Node &N : (*G)->nodes())
      N.setSources({});

  if (O.Stats)
    for (const PassRunRecord &R : PM.records()) {
      llvm::errs() << R.Name << ":";
      if (R.Stats.counts().empty())
        llvm::errs() << " no change";
      for (const auto &[What, N] : R.Stats.counts())
        llvm::errs() << ' ' << N << ' ' << What;
      llvm::errs() << '\n';
    }
  if (O.Stats && QuantOpts->Mode != QuantizeMode::None)
    printQuantizeReport(QReport, llvm::errs());

  PrintOptions PO;
  PO.PrintAllWeights = O.PrintWeights;
  WeightsSidecar Sidecar;
  if (!O.Output.empty()) {
    PO.Sidecar = &Sidecar;
    std::string Text = printGraphToString(**G, PO);
    std::string SidecarPath = O.Output + ".weights";
    // The sidecar goes first, so a reader never sees a .kir whose blobs are
    // missing; each file is replaced atomically.
    if (!Sidecar.empty())
      if (llvm::Error E = writeFileAtomically(SidecarPath, Sidecar.bytes()))
        return E;
    if (llvm::Error E = writeFileAtomically(O.Output, Text))
      return E;
  } else if (!O.Json) {
    printGraph(**G, llvm::outs(), PO);
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
    for (const Node &N : (*G)->nodes())
      ++Hist[N.opName().str()];
    llvm::json::Object Ops;
    for (const auto &[Op, N] : Hist)
      Ops[Op] = N;
    llvm::json::Object Report{{"input", O.Input},
                              {"passes", std::move(Passes)},
                              {"nodes", int64_t((*G)->numNodes())},
                              {"ops", std::move(Ops)}};
    if (QuantOpts->Mode != QuantizeMode::None)
      Report["quantize"] = quantizeReportToJson(QReport);
    if (!O.Output.empty())
      Report["output"] = O.Output;
    else
      Report["ir"] = printGraphToString(**G, PO);
    printJson(std::move(Report));
  }
  return llvm::Error::success();
}
} // namespace

Command addOptCommand(CLI::App &App) {
  auto O = std::make_shared<OptOptions>();
  CLI::App *Sub = App.add_subcommand("opt", "run optimization passes on a model and print or write its .kir");
  Sub->add_option("input", O->Input, "the model (.kir or .onnx)")->required();
  addInputShapeOption(*Sub, O->InputShapes);
  Sub->add_option("-o,--output", O->Output,
                  "write the result here (large weights go to OUT.weights)");
  Sub->add_option("-O", O->OptLevel, "optimization level 0, 1 or 2 (default 2)")
      ->check(CLI::Range(0, 2));
  Sub->add_option("--passes", O->Passes, "run exactly these passes, in order")
      ->allow_extra_args(false)
      ->delimiter(',');
  Sub->add_option("--disable-pass", O->Disabled, "skip this pass (repeatable)")
      ->allow_extra_args(false);
  Sub->add_flag("--print-ir-after-all", O->PrintAfterAll,
                "print the IR to stderr after every pass");
  Sub->add_option("--print-ir-after", O->PrintAfter,
                  "print the IR to stderr after this pass (repeatable)");
  Sub->add_flag("--stats", O->Stats, "print what each pass did to stderr");
  Sub->add_flag("--verify-each", O->VerifyEach, "verify the IR after every pass");
  Sub->add_flag("--print-weights", O->PrintWeights, "print every weight inline");
  Sub->add_flag("--strip-provenance", O->StripProvenance,
                "drop the links to the source model's nodes (loc(...))");
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  addQuantizeFlags(*Sub, O->Quantize);
  return {Sub, [O] { return runOpt(*O); }};
}

} // namespace kiln
