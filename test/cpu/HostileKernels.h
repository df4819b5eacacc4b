// Files whose GPU kernel is hostile: each Vulkan seed with its first
// shader's module replaced by valid but hostile SPIR-V (test/hostile-kernels:
// a store through a pointer made from an integer, shared memory indexed out
// of bounds), and each Metal seed with kiln's MSL bound at swapped buffer
// indices. The kernel catalog must refuse every one before a driver sees it
// (issue 51; docs/security.md). Part of kiln-mutants' corpus, so the ASan
// replay loads them too.
#pragma once

#include <string>
#include <vector>

namespace kiln::mutants {

struct HostileKernelFiles {
  unsigned Written = 0;
  unsigned NotRejected = 0;
};

/// Writes DIR/hostile-KIND-SEED.kiln for every Vulkan and Metal seed (none
/// where WriteDir is empty) and loads each; counts those the catalog did
/// not refuse.
HostileKernelFiles hostileKernelFiles(const std::vector<std::string> &Seeds,
                                      const std::string &WriteDir);

} // namespace kiln::mutants
