// The fused activation of conv, conv_transpose, matmul, gemm, linear and add
// (IR/ops/FusedActivation.h), applied in place to a kernel's float result
// after the bias. Each case computes exactly what the standalone relu, clip,
// leaky_relu and hard_swish kernels do, so fusing never changes a number:
//   relu        x < 0 ? 0 : x                    (NaN and -0 stay)
//   clip        min(max(x, lo), hi), lower bound first, NaN stays
//   leaky_relu  x >= 0 ? x : alpha * x
//   hard_swish  x * max(0, min(1, x / 6 + 1/2))
#pragma once

#include "IR/ops/FusedActivation.h"
#include "Interpreter/KernelSupport.h"

#include <algorithm>
#include <type_traits>

namespace kiln {

/// Applies A to Data[0, Count).
template <typename T>
void applyActivation(const FusedActivation &A, T *Data, int64_t Count) {
  static_assert(std::is_floating_point<T>::value, "float results only");
  switch (A.Kind) {
  case ActivationKind::None:
    return;
  case ActivationKind::Relu:
    for (int64_t I = 0; I < Count; ++I)
      Data[I] = Data[I] < T(0) ? T(0) : Data[I];
    return;
  case ActivationKind::Clip: {
    T Lo = T(A.Min), Hi = T(A.Max);
    for (int64_t I = 0; I < Count; ++I) {
      T Y = Data[I] < Lo ? Lo : Data[I];
      Data[I] = Y > Hi ? Hi : Y;
    }
    return;
  }
  case ActivationKind::LeakyRelu: {
    T Alpha = T(A.Alpha);
    for (int64_t I = 0; I < Count; ++I)
      Data[I] = Data[I] >= T(0) ? Data[I] : Alpha * Data[I];
    return;
  }
  case ActivationKind::HardSwish:
    for (int64_t I = 0; I < Count; ++I) {
      T X = Data[I];
      Data[I] = X * std::max(T(0), std::min(T(1), X / T(6) + T(0.5)));
    }
    return;
  }
}

/// Applies node N's fused activation to its result Data[0, Count), in
/// parallel chunks. Does nothing when the activation is none.
template <typename T>
void applyFusedActivation(const Node &N, T *Data, int64_t Count,
                          ThreadPoolRunner &Pool) {
  FusedActivation A = readFusedActivation(N);
  if (A.isNone() || Count == 0)
    return;
  Pool.parallelFor(Count, ElementwiseChunk, [&](int64_t B, int64_t E) {
    applyActivation(A, Data + B, E - B);
  });
}

} // namespace kiln
