// kiln convert: compiles a model into a .kiln file for a target.
//   kiln convert MODEL -o OUT.kiln [--target cpu|onnx] [-O0|-O1|-O2]
//                [--disable-pass NAME]... [--input-shape ...] [--stats] [--json]
//                [--strip-provenance]
//                [--quantize none|fp16|int8-dynamic|int8 ...] (QuantizeFlags.h)
// Prints a short report: ops before and after the passes, the passes run,
// the runtime operators and their kernels, and the file size. Every node the
// target cannot run is listed in one error (exit 1). The file is verified
// with the runtime's own loader before it replaces OUT.kiln.
#include "Command.h"
#include "ModelLoader.h"
#include "ConvertOnnxTarget.h"
#include "ConvertQuantReport.h"
#include "backends/cpu/NativePrepack.h"
#include "QuantizeFlags.h"
#include "Version.h"

#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"
#include "backends/common/KilnWriter.h"
#include "backends/cpu/CpuTarget.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"

#include "kiln/kiln.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <future>
#include <map>

namespace kiln {

namespace {

struct ConvertOptions {
  std::string Input;
  std::string Output;
  std::string Target = "cpu";
  int OptLevel = 2;
  std::vector<std::string> Disabled;
  std::vector<std::string> InputShapes;
  bool Stats = false;
  bool Json = false;
  QuantizeFlags Quantize;
  bool StripProvenance = false;
  std::string Prepack = "portable";
};

using OpHistogram = std::map<std::string, int64_t>;

OpHistogram histogramOf(const Graph &G) {
  OpHistogram H;
  for (const Node &N : G.nodes())
    if (!N.isOp("const"))
      ++H[N.opName().str()];
  return H;
}

int64_t total(const OpHistogram &H) {
  int64_t N = 0;
  for (const auto &KV : H)
    N += KV.second;
  return N;
}

std::string histogramText(const OpHistogram &H) {
  std::vector<std::pair<std::string, int64_t>> Sorted(H.begin(), H.end());
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  std::string S;
  for (const auto &[Op, Count] : Sorted)
    S += (S.empty() ? "" : ", ") + Op + " " + std::to_string(Count);
  return S;
}

/// The source model's hash (xxHash64 of its bytes), computed on another
/// thread while the model is imported, optimized and written: for a 100 MB
/// model it is a tenth of the conversion. value() may be called from any
/// thread; error() tells whether the file could be read.
class SourceHash {
public:
  explicit SourceHash(std::string Path)
      : Result(std::async(std::launch::async, [Path = std::move(Path)] {
                 auto Bytes = mapFile(Path);
                 if (!Bytes)
                   return Outcome{0, llvm::toString(Bytes.takeError())};
                 return Outcome{contentHash((*Bytes)->getBuffer()), ""};
               }).share()) {}
  uint64_t value() const { return Result.get().Hash; }
  llvm::Error error() const {
    if (Result.get().Error.empty())
      return llvm::Error::success();
    return inputError("{0}", Result.get().Error);
  }

private:
  struct Outcome {
    uint64_t Hash;
    std::string Error;
  };
  std::shared_future<Outcome> Result;
};

/// The runtime must accept what the writer produced; if not, it is a bug.
llvm::Error verifyWithRuntime(llvm::StringRef Bytes, llvm::StringRef Out) {
  if (kiln_verify_buffer(Bytes.data(), Bytes.size()) != KILN_OK)
    return internalError("{0}: the compiled model does not pass the runtime's "
                         "verifier ({1}); nothing was written",
                         Out, kiln_last_error());
  return llvm::Error::success();
}

/// Everything but the source hash, which the writer fills in.
void fillMetadata(fb::MetadataT &MD, const ConvertOptions &O,
                  const PassManager &PM) {
  MD.producer = "kiln";
  MD.producer_version = KILN_VERSION_STRING;
  MD.pipeline = O.Disabled.empty() ? "-O" + std::to_string(O.OptLevel) : "custom";
  for (const PassRunRecord &R : PM.records())
    MD.passes.push_back(R.Name);
  MD.quantization = fb::Quantization::NONE;
  if (O.Quantize.Mode == "fp16")
    MD.quantization = fb::Quantization::FP16_WEIGHTS;
  else if (O.Quantize.Mode == "int8-dynamic")
    MD.quantization = fb::Quantization::INT8_DYNAMIC;
  else if (O.Quantize.Mode == "int8")
    MD.quantization = fb::Quantization::INT8_STATIC;
  MD.source_model = llvm::sys::path::filename(O.Input).str();
}

llvm::json::Object histogramJson(const OpHistogram &H) {
  llvm::json::Object J;
  for (const auto &[Op, Count] : H)
    J[Op] = Count;
  return J;
}

llvm::Error runConvert(const ConvertOptions &O) {
  if (O.Target != "cpu" && O.Target != "onnx")
    return usageError("--target {0}: unknown target; kiln builds for: cpu, "
                      "onnx",
                      O.Target);
  for (const std::string &D : O.Disabled)
    if (!findPass(D))
      return usageError("--disable-pass: unknown pass '{0}'", D);
  PassManagerOptions PMO;
  PMO.VerifyEach = verifyEachByDefault();
  PassManager PM(PMO);
  for (const std::string &Name : pipelineForLevel(O.OptLevel))
    if (std::find(O.Disabled.begin(), O.Disabled.end(), Name) == O.Disabled.end())
      if (llvm::Error E = PM.add(Name))
        return E;

  auto QuantOpts = makeQuantizeOptions(O.Quantize);
  if (!QuantOpts)
    return QuantOpts.takeError();
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();
  SourceHash Hash(O.Input);
  auto G = loadModel(O.Input, *LoadOpts);
  if (!G)
    return G.takeError();
  OpHistogram Before = histogramOf(**G);
  if (llvm::Error E = PM.run(**G))
    return addContext(std::move(E), O.Input);
  // Quantization comes after every pass (conv+relu quantizes as one op) and
  // before lowering, which turns QDQ patterns into int8 operators.
  QuantizeReport QReport;
  if (llvm::Error E = quantizeGraph(**G, *QuantOpts, QReport))
    return addContext(std::move(E), O.Input);
  if (llvm::Error E = verifyGraph(**G))
    return internalError("{0}: the optimized graph does not verify:\n{1}",
                         O.Input, toString(std::move(E)));
  OpHistogram After = histogramOf(**G);
  if (O.StripProvenance) // no Operator.sources in the file
    for (Node &N : (*G)->nodes())
      N.setSources({});

  if (O.Target == "onnx") // the optimized (or QDQ) graph back as ONNX
    return writeOnnxTarget(**G, O.Input, O.Output, O.Json);
  auto Compiled = compileForCpu(**G);
  if (!Compiled)
    return addContext(Compiled.takeError(), O.Input);
  fillMetadata(*Compiled->Module.Model.metadata, O, PM);
  PrepackReport Prepacked;
  if (O.Prepack == "native") {
    auto R = prepackForThisCpu(Compiled->Module);
    if (!R)
      return addContext(R.takeError(), O.Input);
    Prepacked = *R;
  }
  // Written in place from the module's segments, the source hash last, then
  // verified by the runtime before it replaces the output.
  uint64_t FileBytes = 0;
  if (llvm::Error E = writeKilnFile(
          O.Output, Compiled->Module,
          [&](llvm::StringRef Written) {
            if (llvm::Error HashError = Hash.error())
              return HashError;
            FileBytes = Written.size();
            if (llvm::Error PackError = Prepacked.conversionError())
              return PackError;
            return verifyWithRuntime(Written, O.Output);
          },
          [&Hash] { return Hash.value(); }))
    return E;
  std::string HashHex = hashToHex(Hash.value());

  size_t Xnnpack = 0, Reference = 0, WeightBytes = 0;
  for (const CpuNodeReport &N : Compiled->Nodes)
    for (const auto &Op : N.Ops)
      (Op.second == "xnnpack" ? Xnnpack : Reference) += 1;
  for (const Segment &S : Compiled->Module.Segments)
    WeightBytes += S.size();
  bool Quantized = QuantOpts->Mode != QuantizeMode::None;
  std::vector<FloatLayerReport> FloatLayers =
      Quantized ? floatLayersOnCpu(QReport, *Compiled) : std::vector<FloatLayerReport>();

  if (O.Json) {
    llvm::json::Array Passes, Nodes;
    for (const PassRunRecord &R : PM.records()) {
      llvm::json::Object Counts;
      for (const auto &[What, N] : R.Stats.counts())
        Counts[What] = N;
      Passes.push_back(llvm::json::Object{
          {"name", R.Name}, {"changed", R.Changed}, {"stats", std::move(Counts)}});
    }
    for (const CpuNodeReport &N : Compiled->Nodes) {
      llvm::json::Array Ops;
      for (const auto &Op : N.Ops)
        Ops.push_back(llvm::json::Object{{"kind", Op.first}, {"engine", Op.second}});
      Nodes.push_back(llvm::json::Object{
          {"node", N.Node}, {"op", N.Op}, {"operators", std::move(Ops)}});
    }
    llvm::json::Object Report{
        {"input", O.Input},
        {"output", O.Output},
        {"target", O.Target},
        {"pipeline", Compiled->Module.Model.metadata->pipeline},
        {"passes", std::move(Passes)},
        {"ops_before", histogramJson(Before)},
        {"ops_after", histogramJson(After)},
        {"nodes_before", total(Before)},
        {"nodes_after", total(After)},
        {"operators", int64_t(Xnnpack + Reference)},
        {"xnnpack_operators", int64_t(Xnnpack)},
        {"reference_operators", int64_t(Reference)},
        {"nodes", std::move(Nodes)},
        {"file_bytes", int64_t(FileBytes)},
        {"weight_bytes", int64_t(WeightBytes)},
        {"source_hash", HashHex},
        {"prepack", llvm::json::Object{{"mode", O.Prepack},
                                       {"blocked_weights", Prepacked.Tensors},
                                       {"isa", Prepacked.Isa},
                                       {"padding_bytes",
                                        int64_t(Prepacked.PaddingBytes)}}}};
    if (Quantized)
      Report["quantize"] = quantizeJson(QReport, *Compiled, FloatLayers);
    printJson(std::move(Report));
    return llvm::Error::success();
  }

  llvm::raw_ostream &OS = llvm::outs();
  OS << O.Input << " -> " << O.Output << " (target " << O.Target << ", "
     << Compiled->Module.Model.metadata->pipeline << ")\n";
  OS << "  ops before: " << total(Before) << " (" << histogramText(Before)
     << ")\n";
  OS << "  ops after:  " << total(After) << " (" << histogramText(After)
     << ")\n";
  OS << "  passes:     ";
  for (size_t I = 0; I < PM.records().size(); ++I)
    OS << (I ? ", " : "") << PM.records()[I].Name;
  OS << (PM.records().empty() ? "none\n" : "\n");
  OS << "  operators:  " << Xnnpack + Reference << " (" << Xnnpack
     << " XNNPACK, " << Reference << " reference)\n";
  OS << "  file:       " << FileBytes << " bytes (" << WeightBytes
     << " bytes of weights in " << Compiled->Module.Segments.size()
     << " segments)\n";
  if (O.Prepack == "native")
    OS << "  prepack:    " << Prepacked.Tensors << " weights blocked for oneDNN"
       << (Prepacked.Tensors ? " on " + Prepacked.Isa : std::string())
       << " (" << Prepacked.PaddingBytes << " bytes of padding)\n";
  if (Quantized)
    printQuantizeSummary(OS, QReport, *Compiled, FloatLayers, O.Stats);
  if (O.Stats) {
    OS << "passes:\n";
    for (const PassRunRecord &R : PM.records()) {
      OS << "  " << R.Name << ":";
      if (R.Stats.counts().empty())
        OS << " no change";
      for (const auto &[What, N] : R.Stats.counts())
        OS << ' ' << N << ' ' << What;
      OS << '\n';
    }
    OS << "kernels:\n";
    for (const CpuNodeReport &N : Compiled->Nodes) {
      OS << "  " << N.Op << " '" << N.Node << "':";
      for (size_t I = 0; I < N.Ops.size(); ++I)
        OS << (I ? "," : "") << ' ' << N.Ops[I].first << " ["
           << N.Ops[I].second << "]";
      OS << (N.Ops.empty() ? " (no operator)\n" : "\n");
    }
  }
  return llvm::Error::success();
}

} // namespace

Command addConvertCommand(CLI::App &App) {
  auto O = std::make_shared<ConvertOptions>();
  CLI::App *Sub = App.add_subcommand(
      "convert", "compile a model into a .kiln file for the kiln runtime");
  Sub->add_option("model", O->Input, "the model (.onnx, .kir, .pt)")->required();
  Sub->add_option("-o,--output", O->Output, "the .kiln file to write")
      ->required();
  Sub->add_option("--target", O->Target,
                  "the target device (cpu), or onnx: write the optimized "
                  "graph as an ONNX model");
  Sub->add_option("-O", O->OptLevel, "optimization level 0, 1 or 2 (default 2)")
      ->check(CLI::Range(0, 2));
  Sub->add_option("--disable-pass", O->Disabled, "skip this pass (repeatable)")
      ->allow_extra_args(false);
  addInputShapeOption(*Sub, O->InputShapes);
  Sub->add_flag("--stats", O->Stats,
                "also print what each pass did and which kernels (XNNPACK or "
                "reference) run each node");
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  addQuantizeFlags(*Sub, O->Quantize);
  Sub->add_option("--prepack", O->Prepack,
                  "weight layouts: portable (default: XNNPACK's order, the "
                  "same file on every machine) or native (the f32 convolution "
                  "weights in the blocked layout oneDNN's kernels read on this "
                  "CPU, used in place when a session is created; the file "
                  "still runs anywhere)")
      ->check(CLI::IsMember({"portable", "native"}));
  Sub->add_flag("--strip-provenance", O->StripProvenance,
                "leave out the links to the source model's nodes "
                "(Operator.sources)");
  return {Sub, [O] { return runConvert(*O); }};
}

} // namespace kiln
