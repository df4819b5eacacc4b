// kiln inspect: what a model is, in one screen.
//   kiln inspect MODEL [--nodes] [--format text|json|dot|svg] [-o FILE]
//                [--input-shape ...]
//   kiln inspect FILE.kiln --kernel NAME [--json] [-o FILE]
// Inputs and outputs, the op histogram, parameters and bytes by element
// type, estimated MACs (per node with --nodes) and provenance. dot and svg
// draw the graph (svg laid out by Graphviz), fused nodes labelled with what
// they absorbed. A .kiln file shows its runtime operators and engines, its
// metadata and where its bytes go (KilnInspect.h); --kernel prints one of
// a GPU file's kernels on its own (a Metal kernel's MSL, a Vulkan shader's
// SPIR-V disassembly) and nothing else.
#include "Command.h"
#include "Support/Json.h"
#include "Tooling/GraphDot.h"
#include "Tooling/GraphStats.h"
#include "Tooling/KilnInspect.h"
#include "Driver/ModelLoader.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

namespace {

struct InspectOptions {
  std::string Model;
  std::vector<std::string> InputShapes;
  std::string Format = "text";
  std::string Output;
  bool Nodes = false;
  bool Json = false; // --json: the same as --format json
  std::string Kernel; // --kernel NAME: that kernel's source only
};

std::string textReport(const Graph &G, const GraphStats &S, bool Nodes,
                       llvm::StringRef Path) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "model: " << Path << " (graph @" << G.name() << ")\n";
  OS << "inputs:\n";
  for (const Value *In : G.inputs())
    OS << "  " << In->name() << ": " << toString(In->type()) << "\n";
  OS << "outputs:\n";
  for (const Value *V : G.outputs())
    OS << "  " << V->name() << ": " << toString(V->type()) << "\n";
  int64_t Ops = 0;
  for (const auto &[Op, N] : S.OpHistogram)
    Ops += N;
  OS << "ops: " << Ops << " (constants not counted)\n";
  std::vector<std::pair<std::string, int64_t>> Hist(S.OpHistogram.begin(),
                                                    S.OpHistogram.end());
  std::stable_sort(Hist.begin(), Hist.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  for (const auto &[Op, N] : Hist)
    OS << llvm::formatv("  {0,-18} {1,6}\n", Op, N);
  OS << "parameters:\n";
  int64_t TotalP = 0, TotalB = 0;
  for (const auto &[Type, P] : S.ParamsByType) {
    OS << llvm::formatv("  {0,-6} {1,12} elements  {2,12}\n", Type,
                        humanCount(P.Count), humanBytes(P.Bytes));
    TotalP += P.Count;
    TotalB += P.Bytes;
  }
  OS << llvm::formatv("  {0,-6} {1,12} elements  {2,12}\n", "total",
                      humanCount(TotalP), humanBytes(TotalB));
  OS << "MACs: " << humanCount(S.TotalMacs) << " (" << S.TotalMacs << ")\n";
  if (Nodes) {
    OS << "nodes:\n";
    OS << llvm::formatv("  {0,-28} {1,-16} {2,-24} {3,12} {4,10}  {5}\n",
                        "name", "op", "result", "MACs", "params", "sources");
    for (const NodeStats &NS : S.Nodes)
      OS << llvm::formatv("  {0,-28} {1,-16} {2,-24} {3,12} {4,10}  {5}\n",
                          NS.N->displayName(), NS.N->opName(),
                          toString(NS.N->result(0)->type()), NS.Macs,
                          NS.Params, llvm::join(NS.N->sources(), ","));
  }
  return OS.str();
}

llvm::json::Value jsonReport(const Graph &G, const GraphStats &S, bool Nodes,
                             llvm::StringRef Path) {
  auto Io = [](const Value *V) {
    llvm::json::Array Dims;
    for (const Dim &D : V->type().Dims)
      Dims.push_back(D.isStatic()     ? llvm::json::Value(D.size())
                     : D.isSymbolic() ? llvm::json::Value(D.symbol())
                                      : llvm::json::Value("?"));
    return llvm::json::Object{{"name", V->name()},
                              {"type", toString(V->type())},
                              {"dtype", elementTypeName(V->type().Elem)},
                              {"shape", std::move(Dims)}};
  };
  llvm::json::Array Inputs, Outputs;
  for (const Value *In : G.inputs())
    Inputs.push_back(Io(In));
  for (const Value *V : G.outputs())
    Outputs.push_back(Io(V));
  llvm::json::Object Ops, Params;
  for (const auto &[Op, N] : S.OpHistogram)
    Ops[Op] = N;
  for (const auto &[Type, P] : S.ParamsByType)
    Params[Type] = llvm::json::Object{{"elements", P.Count}, {"bytes", P.Bytes}};
  llvm::json::Object R{{"model", Path},
                       {"graph", G.name()},
                       {"inputs", std::move(Inputs)},
                       {"outputs", std::move(Outputs)},
                       {"ops", std::move(Ops)},
                       {"parameters", std::move(Params)},
                       {"macs", S.TotalMacs}};
  if (Nodes) {
    llvm::json::Array NodeArr;
    for (const NodeStats &NS : S.Nodes) {
      llvm::json::Array Src;
      for (const std::string &X : NS.N->sources())
        Src.push_back(X);
      NodeArr.push_back(llvm::json::Object{
          {"name", NS.N->displayName()},
          {"op", NS.N->opName()},
          {"type", toString(NS.N->result(0)->type())},
          {"macs", NS.Macs},
          {"params", NS.Params},
          {"sources", std::move(Src)}});
    }
    R["nodes"] = std::move(NodeArr);
  }
  return R;
}

llvm::Error emit(const InspectOptions &O, const std::string &Text) {
  // A report streams: '-' and /dev/stdout are standard output (every other
  // -o is a file written whole and renamed into place).
  if (O.Output.empty() || O.Output == "-" || O.Output == "/dev/stdout") {
    commandOut() << Text;
    return llvm::Error::success();
  }
  return writeFileAtomically(O.Output, Text);
}

/// A .kiln file: the compiled operators, metadata and size breakdown.
llvm::Error inspectKilnFile(const InspectOptions &O) {
  auto S = readKilnFileStats(O.Model);
  if (!S)
    return S.takeError();
  if (!O.Kernel.empty()) {
    auto Source = kilnKernelSource(S->Model, O.Model, O.Kernel);
    if (!Source)
      return Source.takeError();
    if (O.Format == "json") {
      llvm::json::Value V =
          llvm::json::Object{{"kernel", O.Kernel}, {"source", *Source}};
      return emit(O, formatJson(V) + "\n");
    }
    return emit(O, *Source);
  }
  if (O.Format == "json")
    return emit(O, formatJson(kilnJsonReport(*S, O.Nodes)) + "\n");
  if (O.Format == "dot")
    return emit(O, kilnToDot(*S));
  if (O.Format == "svg") {
    auto Svg = dotToSvg(kilnToDot(*S));
    if (!Svg)
      return Svg.takeError();
    return emit(O, *Svg);
  }
  return emit(O, kilnTextReport(*S, O.Nodes));
}

llvm::Error runInspect(const InspectOptions &O) {
  if (llvm::StringRef(O.Model).endswith_insensitive(".kiln"))
    return inspectKilnFile(O);
  if (!O.Kernel.empty())
    return usageError("--kernel reads a .kiln file (a compiled model's "
                      "kernels); {0} is not one",
                      O.Model);
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();
  auto G = loadModel(O.Model, *LoadOpts);
  if (!G)
    return G.takeError();
  GraphStats S = computeGraphStats(**G);
  if (O.Format == "json") {
    std::string Text = formatJson(jsonReport(**G, S, O.Nodes, O.Model)) + "\n";
    return emit(O, Text);
  }
  if (O.Format == "dot")
    return emit(O, graphToDot(**G));
  if (O.Format == "svg") {
    auto Svg = dotToSvg(graphToDot(**G));
    if (!Svg)
      return Svg.takeError();
    return emit(O, *Svg);
  }
  return emit(O, textReport(**G, S, O.Nodes, O.Model));
}

} // namespace

Command addInspectCommand(CLI::App &App) {
  auto O = std::make_shared<InspectOptions>();
  CLI::App *Sub = App.add_subcommand(
      "inspect", "summarize a model: I/O, op histogram, parameters, MACs; "
                 "or draw it (dot, svg)");
  Sub->add_option("model", O->Model, "the model (.onnx, .pt, .kir, .kiln)")
      ->required();
  addInputShapeOption(*Sub, O->InputShapes);
  Sub->add_flag("--nodes", O->Nodes, "add a per-node table (MACs, params, sources)");
  Sub->add_option("--format", O->Format, "text (default), json, dot or svg")
      ->check(CLI::IsMember({"text", "json", "dot", "svg"}));
  Sub->add_option("-o,--output", O->Output, "write to this file instead of stdout");
  Sub->add_flag("--json", O->Json, "the same as --format json");
  Sub->add_option("--kernel", O->Kernel,
                  "print only this kernel's source: the MSL of a Metal "
                  "file's kernel, the SPIR-V disassembly of a Vulkan file's "
                  "shader (with --json: {\"kernel\", \"source\"})");
  return {Sub, [O]() {
            InspectOptions Opts = *O;
            if (Opts.Json)
              Opts.Format = "json";
            return runInspect(Opts);
          }};
}

} // namespace kiln
