// Shared declarations of the NN kernel files (conv, matmul, norms, pooling,
// resize, softmax...): their registration functions, called from
// registerNNKernels(), and the small helpers they all use to dispatch on the
// element type and to read per-node attributes at run time.
//
// Float kernels are written once as templates over the compute type (float or
// double). f16 and bf16 inputs are widened to f32, run through the float
// kernel, and results whose declared type is f16/bf16 are narrowed back (round
// to nearest even): exact enough for a reference and costs no extra code.
#pragma once

#include "Interpreter/Kernel.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace kiln {

void registerConvKernels();
void registerMatMulKernels();
void registerNormKernels();
void registerPoolKernels();
void registerResizeKernels();
void registerImageKernels();
void registerDetectionKernels();
void registerRecurrentKernels();

namespace nn {

using KernelImpl = llvm::Error (*)(KernelContext &);

/// Runs F32 or F64 by the element type of operand 0; f16/bf16 go through F32
/// with widened inputs and narrowed results. Other types are an error naming
/// the op.
llvm::Error dispatchFloat(KernelContext &Ctx, KernelImpl F32, KernelImpl F64);

/// Runs Fn on a copy of Ctx whose f16/bf16 inputs are widened to f32; results
/// declared f16/bf16 on the node are narrowed back into Ctx.Outputs.
llvm::Error runWidened(KernelContext &Ctx, KernelImpl Fn);

/// Error for an unsupported element type of operand 0.
llvm::Error unsupportedType(const KernelContext &Ctx);

/// The values of a small tensor (parameters, scales...) converted to T.
template <typename T> std::vector<T> valuesAs(const Tensor &In) {
  std::vector<T> V(size_t(In.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = T(In.asDouble(int64_t(I)));
  return V;
}

/// Product of Sizes[Begin, End).
int64_t product(const std::vector<int64_t> &Sizes, size_t Begin, size_t End);

/// Per-spatial-axis window parameters of conv and pooling, read from the
/// node's attributes against the runtime rank (errors are plain messages).
struct WindowParams {
  std::vector<int64_t> Strides, Dilations, PadBegin, PadEnd;
};
llvm::Expected<WindowParams> readWindow(const Node &N, size_t NumSpatial,
                                        bool HasDilations);

/// Base[d * Count + p] = coord_d(p) * stride_d - padBegin_d for every
/// position p of the row-major grid Grid (Count positions): the origin of
/// the window of output position p along axis d.
std::vector<int64_t> windowOrigins(const std::vector<int64_t> &Grid,
                                   const WindowParams &W);

/// Decodes a row-major flat index into per-axis coordinates (Coord is
/// resized by the caller to Grid.size()).
void decode(int64_t Flat, const std::vector<int64_t> &Grid,
            std::vector<int64_t> &Coord);

/// True when an optional operand is absent or an empty tensor ("not given").
inline bool isAbsent(const Tensor *T) {
  return !T || T->numElements() == 0;
}

} // namespace nn
} // namespace kiln
