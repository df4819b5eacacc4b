// Fusions the session makes at load time, where a kernel library can compute
// two adjacent operators of the file at once (oneDNN post-ops):
//  - a convolution followed by the f32 ADD of its output and another tensor
//    (a residual connection), computed as the convolution with a sum
//    post-op: the add's output takes the other operand's bytes (read by
//    nothing after the add), and the convolution adds its result to them;
//  - a fully connected layer followed by GELU (a transformer's or ConvNeXt's
//    MLP), computed as the inner product with a GELU post-op writing the
//    GELU's output.
// The first operator's own output is never materialized.
#pragma once

#include "loader/LoadedModel.h"

#include <vector>

namespace kiln::rt {

struct SessionFusion {
  enum class Kind { ConvAdd, FullyConnectedGelu };
  Kind K = Kind::ConvAdd;
  size_t First = 0, Second = 0; // operator indices; Second == First + 1
  int32_t Other = -1; // ConvAdd: the add's operand that is not the conv's
};

/// Every pair that can be fused. In both, the first operator's output is
/// read by the second alone (and is not a graph output), everything is f32,
/// and neither runs on the reference kernels by the file's choice. A
/// conv + add's other operand has the same shape, is an activation (not a
/// constant, graph input or output), is not the conv's own input and is
/// read by nothing after the add. A GELU (exact or tanh) has no clamp of
/// its own: UnaryOptions' bounds are CLAMP's.
std::vector<SessionFusion> findSessionFusions(const LoadedModel &M);

} // namespace kiln::rt
