// The TorchScript frontend: loads a traced or scripted module with libtorch,
// freezes and inlines it, folds the constant plumbing (lists, tuples, If/Loop
// on constants) and maps each remaining aten op onto canonical IR ops.
//
// This header includes nothing from libtorch, so the tools that call it do
// not compile against libtorch's headers.
#pragma once

#include "IR/Graph.h"
#include "IR/InputShapes.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace kiln {

struct TorchScriptImportOptions {
  /// Shapes for the inputs of forward(); TorchScript files record none, so
  /// every tensor input needs one (name -> dims; "" for the only input).
  InputShapeMap InputShapes;
};

/// Imports the module at Path. The zip archive is checked (checkZipArchive)
/// before libtorch reads it. Unsupported ops are all listed at once, each
/// with the Python source line TorchScript recorded.
llvm::Expected<std::unique_ptr<Graph>>
importTorchScriptFile(llvm::StringRef Path,
                      const TorchScriptImportOptions &Opts);

} // namespace kiln
