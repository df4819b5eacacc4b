// Kernels on Eigen's vectorized GEMM and array arithmetic (NEON on ARM,
// SSE/AVX on x86) for the f32 operators XNNPACK does not have: MATMUL of
// two activations, LAYER_NORM, GELU, SOFTMAX over another axis than the
// last (and log-softmax), and whole LSTM and GRU layers. On x86 oneDNN
// runs them first; these serve ARM, where the runtime has no oneDNN, and
// `--no-onednn`. Single-threaded (EIGEN_DONT_PARALLELIZE): a session's
// kernels run one at a time.
#pragma once

#include "cpu/Kernel.h"

#include <memory>

namespace kiln::rt {

/// The Eigen kernel for A's operator, or null where it has none (another
/// operator, or element types other than f32).
std::unique_ptr<Kernel> createEigenKernel(const KernelArgs &A);

} // namespace kiln::rt
