// The ONNX target of kiln convert.
#include "ConvertOnnxTarget.h"
#include "Command.h"
#include "Version.h"

#include "Support/Error.h"
#include "backends/onnx/OnnxExporter.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

llvm::Error writeOnnxTarget(const Graph &G, llvm::StringRef Input,
                            llvm::StringRef Output, bool Json) {
  OnnxExportOptions Opts;
  Opts.ProducerVersion = KILN_VERSION_STRING;
  OnnxExportReport R;
  if (llvm::Error E = writeOnnxFile(G, Output, Opts, R))
    return addContext(std::move(E), Input);
  int64_t Nodes = 0;
  for (const auto &KV : R.Ops)
    Nodes += KV.second;
  if (Json) {
    llvm::json::Object Ops;
    for (const auto &[Op, N] : R.Ops)
      Ops[Op] = N;
    printJson(llvm::json::Object{{"input", Input},
                                 {"output", Output},
                                 {"target", "onnx"},
                                 {"onnx_nodes", Nodes},
                                 {"onnx_ops", std::move(Ops)},
                                 {"initializers", R.Initializers},
                                 {"file_bytes", R.Bytes}});
    return llvm::Error::success();
  }
  llvm::raw_ostream &OS = llvm::outs();
  OS << Input << " -> " << Output << " (target onnx, opset 14, passes the "
     << "ONNX checker)\n  nodes: " << Nodes << " (";
  bool First = true;
  for (const auto &[Op, N] : R.Ops) {
    OS << (First ? "" : ", ") << Op << " " << N;
    First = false;
  }
  OS << ")\n  initializers: " << R.Initializers << "\n  file: " << R.Bytes
     << " bytes\n";
  return llvm::Error::success();
}

} // namespace kiln
