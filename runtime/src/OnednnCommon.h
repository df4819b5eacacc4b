// What the oneDNN kernels (OnednnKernels.cpp, OnednnWinograd.cpp) share:
// the CPU engine, the OpenMP team of one they run in, the f32 post-ops of a
// fused activation (and add), and oneDNN's reference-kernel test.
#pragma once

#include "Kernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <initializer_list>
#include <string>

namespace kiln::rt::onednn {

inline const dnnl::engine &cpuEngine() {
  static const dnnl::engine Engine(dnnl::engine::kind::cpu, 0);
  return Engine;
}

/// Sets the calling thread's OpenMP thread count to one while it lives:
/// oneDNN sizes its team from it, when a primitive is created and run.
class OneOpenMpThread {
public:
  OneOpenMpThread();
  ~OneOpenMpThread();
  OneOpenMpThread(const OneOpenMpThread &) = delete;
  OneOpenMpThread &operator=(const OneOpenMpThread &) = delete;

private:
  int Before;
};

/// The f32 post-ops of a convolution or fully connected layer: its clamp to
/// [Min, Max], then for a fused add (convolutions only) the sum with what
/// the destination holds and the add's clamp.
dnnl::primitive_attr f32Attr(float Min, float Max,
                             const FusedAdd *Add = nullptr);

/// Whether oneDNN chose its reference implementation (far slower than
/// XNNPACK's kernels), from the primitive descriptor's impl_info_str().
inline bool isReference(const char *ImplInfo) {
  return std::string(ImplInfo).rfind("ref", 0) == 0;
}

inline dnnl::memory::dims dims(std::initializer_list<int64_t> L) {
  return dnnl::memory::dims(L.begin(), L.end());
}

/// The Winograd kernel of an f32 3x3 convolution (OnednnWinograd.cpp), or
/// null when the convolution is not one it runs faster than the direct one.
std::unique_ptr<Kernel> createWinogradKernel(const KernelArgs &A);

} // namespace kiln::rt::onednn
