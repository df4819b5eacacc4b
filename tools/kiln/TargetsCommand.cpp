// kiln targets: lists the targets of the registry (backends/Targets.def):
// each one's name, status (works / planned), description, and the IR ops
// its capability table accepts (a node of such an op can still be refused
// for its types or attributes; `kiln convert` then lists every such node).
//   kiln targets [--json]
#include "Command.h"

#include "backends/Target.h"
#include "passes/Pipelines.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

namespace kiln {

namespace {

/// The op names wrapped at about 76 columns, each line indented.
void printWrapped(llvm::raw_ostream &OS, const std::vector<std::string> &Ops) {
  const size_t Indent = 6, Width = 76;
  size_t Column = Indent;
  OS.indent(Indent);
  for (size_t I = 0; I < Ops.size(); ++I) {
    std::string Word = Ops[I] + (I + 1 < Ops.size() ? "," : "");
    if (Column > Indent && Column + 1 + Word.size() > Width) {
      OS << '\n';
      OS.indent(Indent);
      Column = Indent;
    } else if (Column > Indent) {
      OS << ' ';
      ++Column;
    }
    OS << Word;
    Column += Word.size();
  }
  OS << '\n';
}

/// The ops T's -O2 pipeline for float files (its default options) rewrites
/// into ones it runs, "op (pass)", whether or not T also has a kernel for
/// some of them (the CPU's LSTM and GRU operators run forward layers whole;
/// the pass unrolls the others).
std::vector<std::string> rewrittenOps(const Target &T) {
  std::map<std::string, std::string> Variants;
  if (T.PassVariants)
    Variants = T.PassVariants({{"quantize", "none"}});
  std::vector<std::string> Out;
  for (const std::string &Name : T.Pipeline(2)) {
    auto V = Variants.find(Name);
    const std::string &Pass = V == Variants.end() ? Name : V->second;
    for (const std::string &Op : opsRewrittenBy(Pass))
      Out.push_back(Op + " (" + Pass + ")");
  }
  return Out;
}

llvm::Error runTargets(bool Json) {
  if (Json) {
    llvm::json::Array Targets;
    for (const Target &T : allTargets()) {
      llvm::json::Array Ops;
      for (const std::string &Op : T.SupportedOps())
        Ops.push_back(Op);
      llvm::json::Array Rewritten;
      for (const std::string &Op : rewrittenOps(T))
        Rewritten.push_back(Op);
      Targets.push_back(llvm::json::Object{
          {"name", T.Name},
          {"status", targetStatusName(T.Status)},
          {"description", T.Description},
          {"writes_kiln_file", T.FileTarget != 0},
          {"ops", std::move(Ops)},
          {"rewritten_ops", std::move(Rewritten)},
          {"fused_patterns", llvm::json::Array(T.FusedPatterns)}});
    }
    printJson(llvm::json::Object{{"targets", std::move(Targets)}});
    return llvm::Error::success();
  }
  llvm::raw_ostream &OS = commandOut();
  OS << allTargets().size() << " targets\n";
  for (const Target &T : allTargets()) {
    std::vector<std::string> Ops = T.SupportedOps();
    OS << T.Name << "  [" << targetStatusName(T.Status) << "] "
       << T.Description << '\n';
    OS << "    " << Ops.size() << " ops:\n";
    printWrapped(OS, Ops);
    std::vector<std::string> Rewritten = rewrittenOps(T);
    if (!Rewritten.empty()) {
      OS << "    and " << Rewritten.size()
         << " rewritten into those by its pipeline (-O1 and up):\n";
      printWrapped(OS, Rewritten);
    }
    if (!T.FusedPatterns.empty()) {
      OS << "    fused:\n";
      for (const std::string &P : T.FusedPatterns)
        OS << "      " << P << '\n';
    }
  }
  return llvm::Error::success();
}

} // namespace

Command addTargetsCommand(CLI::App &App) {
  auto Json = std::make_shared<bool>(false);
  CLI::App *Sub = App.add_subcommand(
      "targets", "list the targets kiln convert writes for, and their ops");
  Sub->add_flag("--json", *Json, "print JSON");
  return {Sub, [Json] { return runTargets(*Json); }};
}

} // namespace kiln
