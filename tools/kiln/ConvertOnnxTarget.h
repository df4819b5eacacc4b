// `kiln convert --target onnx`: writes the optimized (or QDQ-quantized)
// graph as an ONNX model through backends/onnx, and reports what it wrote.
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace kiln {

llvm::Error writeOnnxTarget(const Graph &G, llvm::StringRef Input,
                            llvm::StringRef Output, bool Json);

} // namespace kiln
