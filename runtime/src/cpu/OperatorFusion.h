// Fusions the session makes at load time, where a kernel library can compute
// two operators of the file at once. Today: a convolution followed by the
// f32 ADD of its output and another tensor (a residual connection), which
// oneDNN computes as the convolution with a sum post-op: the add's output
// takes the other operand's bytes (read by nothing after the add), and the
// convolution adds its result to them. The conv's own output is never
// materialized.
#pragma once

#include "loader/LoadedModel.h"

#include <vector>

namespace kiln::rt {

struct ConvAddFusion {
  size_t Conv = 0, Add = 0; // operator indices; Add == Conv + 1
  int32_t Other = -1;       // the add's operand that is not the conv's output
};

/// Every conv + add pair that can be fused: the conv's output is read by
/// the add alone (and is not a graph output); the add's other operand has
/// the same shape, is an activation (not a constant, graph input or
/// output), is not the conv's own input and is read by nothing after the
/// add; everything is f32; and
/// neither runs on the reference kernels by the file's choice.
std::vector<ConvAddFusion> findConvAddFusions(const LoadedModel &M);

} // namespace kiln::rt
