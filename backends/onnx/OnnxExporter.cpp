// The ONNX model around the exported nodes: opset, inputs and outputs with
// their types, constants as initializers; then the checker and strict shape
// inference, which report problems by throwing.
#include "backends/onnx/OnnxExporter.h"
#include "backends/onnx/OnnxGraphBuilder.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/StringExtras.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

namespace kiln {

using namespace onnx_export;

namespace {

constexpr int64_t OpsetVersion = 14; // HardSwish; per-axis QDQ needs 13
constexpr int64_t IrVersion = 7;     // the IR version of opset 14

void setValueInfo(onnx::ValueInfoProto &VI, const std::string &Name,
                  const TensorType &T) {
  VI.set_name(Name);
  onnx::TypeProto_Tensor &TT = *VI.mutable_type()->mutable_tensor_type();
  TT.set_elem_type(onnxDataType(T.Elem));
  onnx::TensorShapeProto &S = *TT.mutable_shape();
  for (const Dim &D : T.Dims) {
    onnx::TensorShapeProto_Dimension &OD = *S.add_dim();
    if (D.isStatic())
      OD.set_dim_value(D.size());
    else if (D.isSymbolic())
      OD.set_dim_param(D.symbol());
  }
}

/// One line from a multi-line exception message.
std::string oneLine(const std::string &What) {
  std::string Out;
  for (char C : What)
    Out += C == '\n' ? ' ' : C;
  return Out;
}

std::string describe(const Node &N) {
  return "'" + N.displayName() + "' (" + N.opName().str() + ")";
}

llvm::Error unsupportedError(const std::vector<std::string> &Nodes) {
  return inputError("{0} node(s) have no ONNX export yet: {1}", Nodes.size(),
                    llvm::join(Nodes, ", "));
}

} // namespace

std::vector<std::string> onnxExportableOps() {
  return exportableOps();
}

llvm::Error checkOnnxExport(const Graph &G) {
  std::vector<std::string> Unsupported;
  for (const Node &N : G.nodes())
    if (!N.isOp("const") && !exportsNode(N))
      Unsupported.push_back(describe(N));
  if (Unsupported.empty())
    return llvm::Error::success();
  return unsupportedError(Unsupported);
}

llvm::Expected<std::string> exportOnnxModel(const Graph &G,
                                            const OnnxExportOptions &Opts,
                                            OnnxExportReport &Report) {
  onnx::ModelProto M;
  M.set_ir_version(IrVersion);
  M.set_producer_name("kiln");
  M.set_producer_version(Opts.ProducerVersion);
  onnx::OperatorSetIdProto &Opset = *M.add_opset_import();
  Opset.set_domain("");
  Opset.set_version(OpsetVersion);
  onnx::GraphProto &OG = *M.mutable_graph();
  OG.set_name(G.name());
  GraphBuilder B(OG);
  for (const Value *In : G.inputs())
    setValueInfo(*OG.add_input(), B.name(In), In->type());
  std::vector<std::string> Unsupported;
  for (const Node &N : G.nodes()) {
    if (N.isOp("const")) {
      B.initializer(B.name(N.result(0)), N.getTensor("value"));
      ++Report.Initializers;
      continue;
    }
    if (!exportNode(N, B))
      Unsupported.push_back(describe(N));
  }
  if (!Unsupported.empty())
    return unsupportedError(Unsupported);
  for (const Value *Out : G.outputs())
    setValueInfo(*OG.add_output(), B.name(Out), Out->type());
  for (const onnx::NodeProto &N : OG.node())
    ++Report.Ops[N.op_type()];

  try {
    onnx::checker::check_model(M);
    // What onnx.checker.check_model(full_check=True) adds: strict shape
    // inference with type checks (on a copy; the file keeps no value_info).
    onnx::ModelProto Inferred = M;
    onnx::ShapeInferenceOptions SIO(/*check_type=*/true, /*error_mode=*/1,
                                    /*data_prop=*/false);
    onnx::shape_inference::InferShapes(Inferred,
                                       onnx::OpSchemaRegistry::Instance(), SIO);
  } catch (const std::exception &E) {
    return internalError("the exported ONNX model does not pass the ONNX "
                         "checker: {0}",
                         oneLine(E.what()));
  }
  std::string Bytes;
  if (!M.SerializeToString(&Bytes))
    return internalError("the exported ONNX model does not serialize");
  Report.Bytes = int64_t(Bytes.size());
  return Bytes;
}

llvm::Error writeOnnxFile(const Graph &G, llvm::StringRef Path,
                          const OnnxExportOptions &Opts,
                          OnnxExportReport &Report) {
  auto Bytes = exportOnnxModel(G, Opts, Report);
  if (!Bytes)
    return Bytes.takeError();
  return writeFileAtomically(Path, *Bytes);
}

} // namespace kiln
