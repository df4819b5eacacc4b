// DOT output and SVG layout through Graphviz.
#include "Tooling/GraphDot.h"

#include "Support/Error.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace kiln {

namespace {

std::string escape(llvm::StringRef S) {
  std::string R;
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    R += C;
  }
  return R;
}

std::string fusedActivation(const Node &N) {
  const AttrValue *A = N.attrOrDefault("activation");
  if (!A || !std::holds_alternative<std::string>(*A))
    return "";
  const std::string &S = std::get<std::string>(*A);
  return S == "none" ? "" : S;
}

} // namespace

std::string graphToDot(const Graph &G) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "digraph \"" << escape(G.name()) << "\" {\n"
     << "  rankdir=TB;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", "
        "fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
  std::map<const Value *, std::string> Id;
  unsigned Next = 0;
  for (const Value *In : G.inputs()) {
    std::string I = "in" + std::to_string(Next++);
    Id[In] = I;
    OS << "  " << I << " [shape=ellipse, fillcolor=\"#dff0d8\", label=\""
       << escape(In->name()) << "\\n" << escape(toString(In->type())) << "\"];\n";
  }
  for (const Node &N : G.nodes()) {
    if (N.isOp("const"))
      continue;
    std::string I = "n" + std::to_string(Next++);
    for (const Value *R : N.results())
      Id[R] = I;
    std::string Label = N.opName().str();
    std::string Act = fusedActivation(N);
    if (!Act.empty())
      Label += " + " + Act;
    Label += "\\n" + escape(N.displayName());
    const auto &Src = N.sources();
    bool Fused = Src.size() > 1;
    if (Fused) {
      Label += "\\nabsorbed:";
      for (size_t K = 1; K < Src.size(); ++K)
        Label += " " + escape(Src[K]);
    }
    Label += "\\n" + escape(toString(N.result(0)->type()));
    OS << "  " << I << " [label=\"" << Label << "\""
       << (Fused ? ", fillcolor=\"#fde9c8\"" : "") << "];\n";
    for (const Value *Op : N.operands()) {
      if (!Op || (Op->producer() && Op->producer()->isOp("const")))
        continue;
      auto It = Id.find(Op);
      if (It != Id.end())
        OS << "  " << It->second << " -> " << I << ";\n";
    }
  }
  for (size_t K = 0; K < G.outputs().size(); ++K) {
    const Value *V = G.outputs()[K];
    std::string I = "out" + std::to_string(K);
    OS << "  " << I << " [shape=ellipse, fillcolor=\"#f2dede\", label=\""
       << escape(V->name()) << "\\n" << escape(toString(V->type())) << "\"];\n";
    auto It = Id.find(V);
    if (It != Id.end())
      OS << "  " << It->second << " -> " << I << ";\n";
  }
  OS << "}\n";
  return OS.str();
}

llvm::Expected<std::string> dotToSvg(const std::string &Dot) {
  auto DotExe = llvm::sys::findProgramByName("dot");
  if (!DotExe)
    return inputError("SVG output needs Graphviz's `dot` (Debian package "
                      "graphviz); use --format dot to get the graph text");
  llvm::SmallString<128> In, Out;
  if (auto EC = llvm::sys::fs::createTemporaryFile("kiln-inspect", "dot", In))
    return internalError("cannot create a temporary file: {0}", EC.message());
  if (auto EC = llvm::sys::fs::createTemporaryFile("kiln-inspect", "svg", Out))
    return internalError("cannot create a temporary file: {0}", EC.message());
  auto Cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(In);
    llvm::sys::fs::remove(Out);
  });
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In, EC);
    if (EC)
      return internalError("cannot write {0}: {1}", In, EC.message());
    OS << Dot;
  }
  std::string Err;
  llvm::StringRef Args[] = {*DotExe, "-Tsvg", In, "-o", Out};
  int RC = llvm::sys::ExecuteAndWait(*DotExe, Args, llvm::None, {}, 120, 0, &Err);
  if (RC != 0)
    return internalError("graphviz `dot -Tsvg` failed ({0}){1}", RC,
                         Err.empty() ? "" : ": " + Err);
  auto Buf = llvm::MemoryBuffer::getFile(Out);
  if (!Buf)
    return internalError("cannot read {0}: {1}", Out, Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

} // namespace kiln
