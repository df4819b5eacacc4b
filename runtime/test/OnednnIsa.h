// What oneDNN runs on this CPU, or on the ISA that ONEDNN_MAX_CPU_ISA caps
// it to (kiln's own AVX-512 kernels follow the same cap), for the tests of
// ISA-specific kernels: each checks the kernel where the CPU has it, and
// the path the session really takes where it does not, and says which in
// the test log (Catch2's WARN is printed whether the test passes or not).
#pragma once

#include "cpu/onednn/OnednnCommon.h"

namespace kiln::testing {

using kiln::rt::onednn::isaIncludes;

/// AVX-512 (Skylake-SP and later): oneDNN 2.6's Winograd kernel, its
/// brgemm kernels, and kiln's panel kernel need it.
inline bool onednnHasAvx512() {
  return isaIncludes(dnnl::cpu_isa::avx512_core);
}

/// AVX-512 VNNI (and AMX above it): u8 x s8 products summed into 32 bits
/// (vpdpbusd), so oneDNN's int8 kernels take the weights as they are.
inline bool onednnHasAvx512Vnni() {
  return isaIncludes(dnnl::cpu_isa::avx512_core_vnni);
}

/// AVX-VNNI without AVX-512 (Alder Lake and later client cores).
inline bool onednnHasAvx2Vnni() { return isaIncludes(dnnl::cpu_isa::avx2_vnni); }

} // namespace kiln::testing
