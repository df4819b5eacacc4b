#include "Support/Hash.h"

#include "llvm/Support/xxhash.h"

#include <cstdio>

namespace kiln {

uint64_t contentHash(llvm::StringRef Bytes) { return llvm::xxHash64(Bytes); }

std::string hashToHex(uint64_t Hash) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016llx",
                static_cast<unsigned long long>(Hash));
  return Buf;
}

} // namespace kiln
