// The runtime's portable kernels, one factory per operator family. Each
// returns the closure that runs the operator on the tensors in A (shapes
// already validated by the loader).
#pragma once

#include "cpu/Kernel.h"

#include <cmath>

namespace kiln::rt::ref {

using RunFn = std::function<Status()>;

/// The logistic function, as the recurrent kernels' gates take it.
inline float sigmoid(float X) { return 1.0f / (1.0f + std::exp(-X)); }
/// A closure that splits its work over the session's threads (null pool:
/// the calling thread).
using PooledRunFn = std::function<Status(pthreadpool_t)>;

RunFn conv2D(const KernelArgs &A);
RunFn deconv2D(const KernelArgs &A);
RunFn fullyConnected(const KernelArgs &A);
RunFn matMul(const KernelArgs &A);
/// MATMUL's batches: y's batch dims, with a's and b's element offsets
/// for each (0 strides where an operand broadcasts).
struct MatMulBatches {
  MatMulBatches(const KernelTensor &A, const KernelTensor &B,
                const KernelTensor &Y);
  /// Fn(offset in a, offset in b, offset in y) per batch, in order.
  void forEach(const std::function<void(int64_t, int64_t, int64_t)> &Fn) const;
  int64_t M = 0, N = 0, K = 0;
  std::vector<int64_t> Dims, StrideA, StrideB;
};
RunFn pool2D(const KernelArgs &A);
RunFn globalPool2D(const KernelArgs &A);
RunFn binary(const KernelArgs &A);
RunFn unary(const KernelArgs &A);
RunFn softmax(const KernelArgs &A);
RunFn prelu(const KernelArgs &A);
RunFn transpose(const KernelArgs &A);
RunFn reshape(const KernelArgs &A);
RunFn concat(const KernelArgs &A);
RunFn slice(const KernelArgs &A);
RunFn pad(const KernelArgs &A);
RunFn reduce(const KernelArgs &A);
RunFn broadcast(const KernelArgs &A);
RunFn gather(const KernelArgs &A);
RunFn select(const KernelArgs &A);
RunFn cast(const KernelArgs &A);
RunFn argReduce(const KernelArgs &A);
RunFn layerNorm(const KernelArgs &A);
RunFn resize(const KernelArgs &A);
// Int8 (Int8Kernels.cpp): the qs8/qc8 forms of these operators.
RunFn int8Conv2D(const KernelArgs &A);
RunFn int8FullyConnected(const KernelArgs &A);
RunFn int8MatMul(const KernelArgs &A);
RunFn int8Binary(const KernelArgs &A); // ADD and MUL, broadcasting
PooledRunFn int8Unary(const KernelArgs &A);  // any UnaryOp, as a 256-entry table
RunFn int8MaxPool2D(const KernelArgs &A);
RunFn int8GlobalAveragePool2D(const KernelArgs &A);
RunFn quantizeOrDequantize(const KernelArgs &A);
/// BOX_NMS (BoxNmsKernel.cpp).
RunFn boxNms(const KernelArgs &A);
/// LSTM (LstmKernel.cpp).
RunFn lstm(const KernelArgs &A);
/// GRU (GruKernel.cpp).
RunFn gru(const KernelArgs &A);
/// PIXELS_TO_TENSOR, rows over the session's threads (ImageKernels.cpp).
PooledRunFn pixelsToTensor(const KernelArgs &A);

/// One UNARY op on one f32 value (ElementwiseKernels.cpp).
float applyUnary(fb::UnaryOp Op, float X, float Alpha, float Beta, float Gamma,
                 float Lo, float Hi);

/// min(max(x, Lo), Hi) that keeps NaN.
inline float clampValue(float X, float Lo, float Hi) {
  return X < Lo ? Lo : (X > Hi ? Hi : X);
}

/// Row-major strides of Shape, in elements.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &Shape);

} // namespace kiln::rt::ref
