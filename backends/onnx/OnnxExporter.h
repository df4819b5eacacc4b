// Export of an IR graph back to ONNX (`kiln convert --target onnx`): the
// optimized float graph, or the QDQ graph after `--quantize int8`
// (QuantizeLinear/DequantizeLinear, per-channel axis for weights), as a
// standard ONNX model (opset 14) that other tools can open and run.
// Fused nodes map back to standard ONNX: a conv with a fused activation
// becomes Conv + Relu/Clip/LeakyRelu/HardSwish, linear becomes Gemm. Each
// node keeps its provenance in doc_string. The model must pass
// onnx::checker::check_model and strict ONNX shape inference (the
// `full_check` of onnx.checker) before anything is written; the file is
// written atomically.
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln {

struct OnnxExportOptions {
  std::string ProducerVersion;
};

struct OnnxExportReport {
  /// ONNX op type -> count.
  std::map<std::string, int64_t> Ops;
  int64_t Initializers = 0;
  int64_t Bytes = 0; // of the serialized model
};

/// The IR ops the exporter knows, sorted (`kiln targets`).
std::vector<std::string> onnxExportableOps();

/// Bad-input error listing every node that has no ONNX form, in the
/// exporter's own words; success when the whole graph exports.
llvm::Error checkOnnxExport(const Graph &G);

/// Builds, checks and serializes the model. Bad-input error listing every
/// node whose op has no ONNX form; internal error when the checker rejects
/// the result.
llvm::Expected<std::string> exportOnnxModel(const Graph &G,
                                            const OnnxExportOptions &Opts,
                                            OnnxExportReport &Report);

/// exportOnnxModel, then writeFileAtomically(Path, ...).
llvm::Error writeOnnxFile(const Graph &G, llvm::StringRef Path,
                          const OnnxExportOptions &Opts,
                          OnnxExportReport &Report);

} // namespace kiln
