// The ONNX target's registry entry (backends/Targets.def): the optimized (or
// QDQ-quantized) graph written back as a standard ONNX model through the
// exporter, and a report of what it wrote.
#include "backends/Target.h"
#include "backends/onnx/OnnxExporter.h"

#include "Support/Error.h"
#include "passes/Pipelines.h"

namespace kiln {

namespace {

class OnnxConvertReport final : public TargetReport {
public:
  OnnxConvertReport(std::string Input, std::string Output, OnnxExportReport R)
      : Input(std::move(Input)), Output(std::move(Output)), R(std::move(R)) {
    for (const auto &KV : this->R.Ops)
      Nodes += KV.second;
  }

  void print(llvm::raw_ostream &OS, bool /*Stats: nothing more to say*/) const override {
    OS << Input << " -> " << Output << " (target onnx, opset 14, passes the "
       << "ONNX checker)\n  nodes: " << Nodes << " (";
    bool First = true;
    for (const auto &[Op, N] : R.Ops) {
      OS << (First ? "" : ", ") << Op << " " << N;
      First = false;
    }
    OS << ")\n  initializers: " << R.Initializers << "\n  file: " << R.Bytes
       << " bytes\n";
  }

  llvm::json::Object json() const override {
    llvm::json::Object Ops;
    for (const auto &[Op, N] : R.Ops)
      Ops[Op] = N;
    return llvm::json::Object{{"input", Input},
                              {"output", Output},
                              {"target", "onnx"},
                              {"onnx_nodes", Nodes},
                              {"onnx_ops", std::move(Ops)},
                              {"initializers", R.Initializers},
                              {"file_bytes", R.Bytes}};
  }

private:
  std::string Input, Output;
  OnnxExportReport R;
  int64_t Nodes = 0;
};

llvm::Expected<std::unique_ptr<TargetReport>> emitOnnx(const Graph &G,
                                                       const EmitRequest &Req) {
  OnnxExportOptions Opts;
  Opts.ProducerVersion = Req.ProducerVersion;
  OnnxExportReport R;
  if (llvm::Error E = writeOnnxFile(G, Req.Output, Opts, R))
    return addContext(std::move(E), Req.Input);
  return std::make_unique<OnnxConvertReport>(Req.Input, Req.Output,
                                             std::move(R));
}

} // namespace

Target onnxTarget() {
  Target T;
  T.Name = "onnx";
  T.PolymorphicFiles = true; // symbolic dims stay dim_params
  T.Description = "the optimized (or QDQ-quantized) graph as a standard ONNX "
                  "model (opset 14) for other tools";
  T.Status = TargetStatus::Works;
  T.FileTarget = 0; // writes no .kiln file
  T.SupportedOps = onnxExportableOps;
  T.Check = checkOnnxExport;
  T.Pipeline = pipelineForLevel;
  T.Emit = emitOnnx;
  return T;
}

} // namespace kiln
