// Files whose Vulkan kernel is hostile but valid SPIR-V (test/hostile-kernels:
// a store through a pointer made from an integer, shared memory indexed out
// of bounds): each Vulkan seed with its first shader's module replaced. The
// loader must refuse every one before a driver sees it (issue 51;
// docs/security.md). Part of kiln-mutants' corpus, so the ASan replay loads
// them too.
#pragma once

#include <string>
#include <vector>

namespace kiln::mutants {

struct HostileKernelFiles {
  unsigned Written = 0;
  unsigned NotRejected = 0;
};

/// Writes DIR/hostile-KERNEL-SEED.kiln for every Vulkan seed (none where
/// WriteDir is empty) and loads each; counts those the loader let through.
HostileKernelFiles hostileKernelFiles(const std::vector<std::string> &Seeds,
                                      const std::string &WriteDir);

} // namespace kiln::mutants
