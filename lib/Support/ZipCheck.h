// Structural checks on a zip archive before any other library reads it
// (TorchScript .pt files are zip archives that libtorch parses and executes).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace kiln {

struct ZipLimits {
  uint64_t MaxEntries = 100000;
  uint64_t MaxEntryBytes = uint64_t(4) << 30;  // 4 GiB per entry
  uint64_t MaxTotalBytes = uint64_t(16) << 30; // 16 GiB uncompressed in all
  uint64_t MaxNameLength = 4096;
};

/// Checks that Path is a well-formed zip archive within Limits: the entry
/// count and sizes are bounded, no entry name is absolute, contains "..",
/// a backslash or a NUL, no two entries share a name, and each entry's size
/// and CRC declared in the central directory match its local header and the
/// bytes actually stored. Errors are input errors naming Path and the entry.
llvm::Error checkZipArchive(llvm::StringRef Path, const ZipLimits &Limits = {});
/// The same on an archive in memory; Name is used in messages.
llvm::Error checkZipBytes(llvm::StringRef Bytes, llvm::StringRef Name,
                          const ZipLimits &Limits = {});

} // namespace kiln
