// A runtime built without oneDNN (KILN_WITH_ONEDNN off: not x86, or no
// libdnnl-dev): XNNPACK and the reference kernels run everything.
#include "cpu/Kernel.h"

namespace kiln::rt {

std::unique_ptr<Kernel> createOnednnKernel(const KernelArgs &, WeightArena &,
                                           const FusedAdd *,
                                           const FusedGelu *) {
  return nullptr;
}

bool onednnBuilt() { return false; }

} // namespace kiln::rt
