// Output sizes of sliding-window operators, shared by the loader's checks
// and the kernels. Arguments are bounded by limits::MaxSpatialParam and
// limits::MaxTensorBytes, so the int64 arithmetic cannot overflow.
#pragma once

#include <cstdint>

namespace kiln::rt {

/// Convolution and pooling: floor((in + pads - dilated kernel) / stride) + 1,
/// or 0 when the dilated kernel is larger than the padded input.
inline int64_t windowOutputSize(int64_t In, int64_t PadBegin, int64_t PadEnd,
                                int64_t Kernel, int64_t Stride,
                                int64_t Dilation) {
  int64_t Padded = In + PadBegin + PadEnd;
  int64_t Effective = Dilation * (Kernel - 1) + 1;
  if (Padded < Effective)
    return 0;
  return (Padded - Effective) / Stride + 1;
}

/// Transposed convolution: stride * (in - 1) + adjustment + dilated kernel
/// - pads; may be <= 0 for a bad combination.
inline int64_t deconvOutputSize(int64_t In, int64_t PadBegin, int64_t PadEnd,
                                int64_t Adjustment, int64_t Kernel,
                                int64_t Stride, int64_t Dilation) {
  return Stride * (In - 1) + Adjustment + Dilation * (Kernel - 1) + 1 -
         PadBegin - PadEnd;
}

} // namespace kiln::rt
