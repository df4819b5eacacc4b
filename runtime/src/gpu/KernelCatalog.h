// The GPU kernels this runtime vouches for: the SHA-256 of every module of
// kiln's kernel catalog (cmake/KilnKernelCatalog.cmake), computed when the
// runtime is built from the same GLSL, with the same glslc, as the
// compiler's. A Vulkan file loads only where each of its SPIR-V modules is
// one of them, and a Metal file only where each kernel record's MSL and
// bindings are (metal/MetalKernelIdentity.h), unless a developer turned the
// policy off (kiln_set_gpu_kernel_policy). docs/security.md gives the
// threat model.
#pragma once

#include "Status.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace kiln::rt {

using Sha256Digest = std::array<uint8_t, 32>;

/// SHA-256 of [Data, Data + Size) (mbedTLS).
Sha256Digest sha256(const void *Data, size_t Size);

struct KernelDigest {
  const char *Name;
  uint8_t Sha256[32];
};

/// Whether kiln_set_gpu_kernel_policy allows modules outside the catalog.
bool anyValidGpuKernelAllowed();
void allowAnyValidGpuKernel(bool Allow);

/// A catalog: its digests sorted (the generated headers sort them), and
/// their count; Count 0 for a runtime built without one.
struct KernelCatalogView {
  const KernelDigest *Digests;
  size_t Count;
  /// Bytes of the largest kernel: anything larger is refused unhashed.
  size_t MaxBytes;
  /// What the modules are, for messages ("SPIR-V module").
  const char *What;
  /// Why the catalog is empty, where it is.
  const char *Missing;
};

/// Whether a module of Size bytes can be in Catalog at all (the policy
/// allows any, or it is no larger than the largest kernel): checked before
/// a module is copied or hashed.
Status checkCatalogKernelSize(const KernelCatalogView &Catalog, size_t Size);

/// Checks a module against Catalog, unless the policy allows any module:
/// its size first, then its SHA-256. Data must be memory the runtime owns
/// (a copy of the file's bytes), and the copy is what the driver gets, so
/// the file cannot change what was checked.
/// FileName is the name the file gives it (shader/kernel name), for the
/// message: a catalog kernel of that name whose bytes differ is most likely
/// a file from another kiln build.
Status checkCatalogKernel(const KernelCatalogView &Catalog, const void *Data,
                          size_t Size, const char *FileName);

} // namespace kiln::rt
