// SHA-256 (mbedTLS), header-only: the runtime's kernel catalog checks and
// the build's Metal digest tool, which cannot link the runtime, share it.
#pragma once

#include <mbedtls/sha256.h>
#include <mbedtls/version.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace kiln::rt {

using Sha256Digest = std::array<uint8_t, 32>;

inline Sha256Digest sha256(const void *Data, size_t Size) {
  Sha256Digest D{};
  const auto *Bytes = static_cast<const unsigned char *>(Data);
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256(Bytes, Size, D.data(), 0);
#else
  mbedtls_sha256_ret(Bytes, Size, D.data(), 0);
#endif
  return D;
}

} // namespace kiln::rt
