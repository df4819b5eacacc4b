// Serializes a KilnModule into a .kiln file: the FlatBuffer first, then the
// weight segments, each at a 64-byte-aligned file offset.
//
// Deterministic: the same module gives the same bytes (fields are written in
// schema order with defaults forced, padding is zeros, nothing depends on
// time or addresses). Atomic: the file is written to a temporary, fsynced
// and renamed, so an interrupted write leaves the old file or the new one.
#pragma once

#include "backends/common/KilnModule.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// The file bytes for M. Sets M.Model.buffers (offsets and sizes) and the
/// schema version. Internal error when a tensor names a missing segment.
llvm::Expected<std::string> serializeKilnModule(KilnModule &M);

/// serializeKilnModule, then writeFileAtomically(Path, ...).
llvm::Error writeKilnFile(llvm::StringRef Path, KilnModule &M);

} // namespace kiln
