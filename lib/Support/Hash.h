// Content hashes: 64-bit xxHash, printed as 16 lowercase hex digits. Used to
// name weight blobs in .kir files and to fingerprint source models.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace kiln {

uint64_t contentHash(llvm::StringRef Bytes);
std::string hashToHex(uint64_t Hash);

} // namespace kiln
