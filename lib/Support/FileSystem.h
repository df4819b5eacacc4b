// Reading files without copying them, and writing them so that nothing is
// ever left half-written.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace kiln {

/// Maps Path read-only (mmap where the OS allows it). Errors name the file.
/// Files above limits::MaxFileBytes are refused before mapping.
llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(llvm::StringRef Path);

/// Writes Bytes to Path atomically: a temporary file in the same folder is
/// written, fsynced and renamed over Path. On any failure the temporary is
/// removed and an existing Path is left untouched.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Bytes);

/// Bytes placed at Offset in a file; what no piece covers reads as zeros.
struct FilePiece {
  uint64_t Offset;
  llvm::StringRef Bytes;
};

/// writeFileAtomically for a file of Size bytes given as pieces, so a large
/// file (a model's weights) is never assembled in memory. When Check is
/// given, it runs on the written temporary (mapped) before the rename; its
/// error leaves Path untouched.
llvm::Error writeFileAtomically(
    llvm::StringRef Path, llvm::ArrayRef<FilePiece> Pieces, uint64_t Size,
    llvm::function_ref<llvm::Error(llvm::StringRef Written)> Check = nullptr);

} // namespace kiln
