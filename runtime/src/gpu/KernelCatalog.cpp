#include "gpu/KernelCatalog.h"

#include <mbedtls/sha256.h>
#include <mbedtls/version.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace kiln::rt {

namespace {

std::atomic<bool> AnyValidKernel{false};

std::string hex(const Sha256Digest &D) {
  static const char Digits[] = "0123456789abcdef";
  std::string S;
  for (uint8_t B : D) {
    S += Digits[B >> 4];
    S += Digits[B & 15];
  }
  return S;
}

} // namespace

Sha256Digest sha256(const void *Data, size_t Size) {
  Sha256Digest D{};
  const auto *Bytes = static_cast<const unsigned char *>(Data);
#if MBEDTLS_VERSION_MAJOR >= 3
  mbedtls_sha256(Bytes, Size, D.data(), 0);
#else
  mbedtls_sha256_ret(Bytes, Size, D.data(), 0);
#endif
  return D;
}

bool anyValidGpuKernelAllowed() { return AnyValidKernel.load(); }

void allowAnyValidGpuKernel(bool Allow) { AnyValidKernel.store(Allow); }

Status checkCatalogKernelSize(const KernelCatalogView &Catalog, size_t Size) {
  if (anyValidGpuKernelAllowed())
    return Status::ok();
  if (Catalog.Count == 0)
    return invalidModel(Catalog.Missing, ", so it loads no ", Catalog.What,
                        "s");
  if (Size > Catalog.MaxBytes)
    return invalidModel("the ", Catalog.What, " (", Size, " bytes) is larger "
                        "than any of this runtime's kernels (at most ",
                        Catalog.MaxBytes, " bytes); kiln runs only the GPU "
                        "kernels it was built with (docs/security.md)");
  return Status::ok();
}

Status checkCatalogKernel(const KernelCatalogView &Catalog, const void *Data,
                          size_t Size, const char *FileName) {
  if (anyValidGpuKernelAllowed())
    return Status::ok();
  if (Status S = checkCatalogKernelSize(Catalog, Size))
    return S;
  Sha256Digest D = sha256(Data, Size);
  const KernelDigest *End = Catalog.Digests + Catalog.Count;
  const KernelDigest *It = std::lower_bound(
      Catalog.Digests, End, D, [](const KernelDigest &K, const Sha256Digest &V) {
        return std::memcmp(K.Sha256, V.data(), V.size()) < 0;
      });
  if (It != End && std::memcmp(It->Sha256, D.data(), D.size()) == 0)
    return Status::ok();
  bool NamedKernel = std::any_of(Catalog.Digests, End, [&](const KernelDigest &K) {
    return FileName && std::strcmp(K.Name, FileName) == 0;
  });
  return invalidModel(
      "the ", Catalog.What, " (", Size, " bytes, SHA-256 ", hex(D),
      ") is not one of this runtime's kernels",
      NamedKernel ? ", though it is named like one: the file was made by "
                    "another build of kiln"
                  : "",
      "; kiln runs only the GPU kernels it was built with (docs/security.md)");
}

} // namespace kiln::rt
