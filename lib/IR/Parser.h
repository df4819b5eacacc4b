// Parses the .kir text form into a verified Graph. Errors are
// "FILE:LINE:COL: message" and exit code 1 (bad input).
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace kiln {

/// Parses Source. FileName is used in messages; blob(...) constants are read
/// from SidecarPath; when it is empty, from the file a leading
/// `weights "NAME"` line names (in FileName's folder), else from
/// FileName + ".weights" (files written before that line existed).
llvm::Expected<std::unique_ptr<Graph>>
parseGraph(llvm::StringRef Source, llvm::StringRef FileName,
           llvm::StringRef SidecarPath = "");

/// Reads and parses a .kir file (and its .kir.weights sidecar, if used).
llvm::Expected<std::unique_ptr<Graph>> parseGraphFile(llvm::StringRef Path);

} // namespace kiln
