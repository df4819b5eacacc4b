// Private to the conv kernels (ConvKernels.cpp): the sizes of one conv or
// conv_transpose read from its operands and attributes, and the two conv
// building blocks that have fast paths of their own: im2col (Im2col.cpp) and
// the direct depthwise conv (DepthwiseConv.cpp).
#pragma once

#include "Interpreter/kernels/NNKernels.h"

#include <cstdint>
#include <vector>

namespace kiln {

/// Sizes of one convolution, all runtime values.
struct ConvGeom {
  int64_t N = 0, C = 0, M = 0, G = 1, Cg = 0, Mg = 0;
  std::vector<int64_t> In, K, Out; // spatial sizes
  nn::WindowParams W;
  int64_t InP = 1, KP = 1, OutP = 1; // products of In, K, Out
};

/// Reads and checks the operands common to conv and conv_transpose.
/// Transposed: the weight is [C, M/G, k...] instead of [M, C/G, k...].
llvm::Expected<ConvGeom> readConvGeom(const KernelContext &Ctx,
                                      bool Transposed);

/// [N, M, out...].
std::vector<int64_t> convOutputSizes(const ConvGeom &Gm);

/// im2col of one group slice X ([Cg, In...]) for output positions
/// [P0, P0+Len): Col is [Cg*KP, Len] row-major, zero where a window reads
/// padding. Base is nn::windowOrigins(Gm.Out, Gm.W).
template <typename T>
void im2col(const T *X, const ConvGeom &Gm, const std::vector<int64_t> &Base,
            int64_t P0, int64_t Len, T *Col);

/// True when depthwiseConv2D computes this conv: 2-D, one input channel per
/// group, and finite weights (see DepthwiseConv.cpp).
template <typename T> bool isDirectDepthwise(const ConvGeom &Gm, const T *W);

/// Output channel Oc of batch item Nn of a depthwise 2-D conv, written to Y
/// (the channel's plane, zero-filled), before bias and activation.
template <typename T>
void depthwiseConv2D(const T *X, const T *W, const ConvGeom &Gm, int64_t Nn,
                     int64_t Oc, T *Y);

} // namespace kiln
