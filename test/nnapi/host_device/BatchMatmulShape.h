// BATCH_MATMUL's indexing (feature level 6), shared by the float and the
// quantized kernels: operands of one rank (2 to 4), the output in the left
// operand's batch dims, the right operand's batch dims equal or 1
// (broadcast), either operand optionally transposed in its last two dims
// (adj_x, adj_y), as AOSP's common/operations/BatchMatmul.cpp runs TFLite's
// reference BatchMatMul.
#pragma once

#include "HostDevice.h"

#include <cstddef>
#include <vector>

namespace kiln::nnapi::host {

struct BatchMatmulShape {
  size_t Batches = 1, M = 0, K = 0, N = 0;
  bool AdjX = false, AdjY = false;
  /// Per output batch, the element offset of the right operand's matrix.
  std::vector<size_t> RightBase;

  explicit BatchMatmulShape(const OpContext &C)
      : AdjX(C.b(2)), AdjY(C.b(3)) {
    const std::vector<uint32_t> &A = C.in(0).Dims, &B = C.in(1).Dims;
    size_t R = A.size();
    M = AdjX ? A[R - 1] : A[R - 2];
    K = AdjX ? A[R - 2] : A[R - 1];
    N = AdjY ? B[R - 2] : B[R - 1];
    // Row-major walk over the left operand's batch dims; the right
    // operand's offset skips its broadcast (size 1) dims.
    std::vector<size_t> Index(R - 2, 0);
    for (size_t I = 0; I + 2 < R; ++I)
      Batches *= A[I];
    for (size_t P = 0; P < Batches; ++P) {
      size_t Off = 0;
      for (size_t I = 0; I + 2 < R; ++I)
        Off = Off * B[I] + (B[I] == 1 ? 0 : Index[I]);
      RightBase.push_back(Off * K * N);
      for (size_t I = R - 2; I-- > 0;) {
        if (++Index[I] < A[I])
          break;
        Index[I] = 0;
      }
    }
  }
  /// Element offsets of a[p][m][k] and b[p][k][n].
  size_t left(size_t P, size_t Row, size_t Kk) const {
    return P * M * K + (AdjX ? Kk * M + Row : Row * K + Kk);
  }
  size_t right(size_t P, size_t Kk, size_t Col) const {
    return RightBase[P] + (AdjY ? Col * K + Kk : Kk * N + Col);
  }
};

} // namespace kiln::nnapi::host
