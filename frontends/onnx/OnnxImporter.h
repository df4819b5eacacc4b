// The ONNX frontend: reads an ONNX ModelProto (opsets 7-17 and newer where the
// op's semantics are known) and maps every node onto canonical IR ops.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct OnnxImportOptions {
  /// Fixed shapes for graph inputs (--input-shape name=1x3x224x224); they
  /// replace symbolic or unknown dims.
  llvm::StringMap<std::vector<int64_t>> InputShapes;
};

/// Imports the model at Path. Large initializers alias the mapped file or the
/// parsed protobuf; external data must stay inside the model's folder.
/// Errors name the file, node and op; unsupported ops are all listed at once.
llvm::Expected<std::unique_ptr<Graph>>
importOnnxFile(llvm::StringRef Path, const OnnxImportOptions &Opts = {});

/// Imports an in-memory model (DisplayName is used in messages; external data
/// is refused, as there is no folder to resolve it against).
llvm::Expected<std::unique_ptr<Graph>>
importOnnxBuffer(llvm::StringRef Bytes, llvm::StringRef DisplayName,
                 const OnnxImportOptions &Opts = {});

/// Decodes a serialized onnx.TensorProto (the conformance suite's .pb files)
/// into a Tensor with owned data.
llvm::Expected<Tensor> readTensorProtoFile(llvm::StringRef Path);

} // namespace kiln
