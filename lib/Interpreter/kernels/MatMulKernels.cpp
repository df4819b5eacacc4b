// Matrix-product kernels of the reference interpreter, on Eigen GEMM:
//
//   matmul(a, b): numpy semantics. A 1-D a is promoted to [1, K] and a 1-D b
//     to [K, 1], and the added dim is dropped from the result; leading batch
//     dims broadcast. When b has no batch (or all-1 batch dims), a's batch is
//     folded into its rows: one [B*M, K] x [K, N] product.
//   gemm(a, b, c): y = alpha * op(a) . op(b) + beta * c, op = transpose when
//     trans_a / trans_b; c (optional) broadcasts unidirectionally to [M, N]
//     ([], [N], [1, N], [M, 1], [M, N]...).
//   linear(x, w, b): y = x . w^T + b, w is [out, in], x is [..., in].
//
// All three apply the node's fused activation to the result (after c / b).
//
// Work is split over (batch, block of output rows): row blocks of a and of
// the result are independent, so single-matrix products still use every
// thread.
#include "Interpreter/kernels/FusedActivation.h"
#include "Interpreter/kernels/NNKernels.h"

#include "IR/ShapeInference.h"
#include "Support/Error.h"

#include <Eigen/Core>

#include <algorithm>

namespace kiln {

namespace {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMat = Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>>;
template <typename T>
using MutMat = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;

/// Rows per work item for a product of Rows x K by K x N done Batches times:
/// enough items for the threads, but not blocks too small to be worth it.
int64_t rowTile(int64_t Rows, int64_t K, int64_t N, int64_t Batches,
                unsigned Threads) {
  int64_t Want = std::max<int64_t>(1, 2 * int64_t(Threads) / std::max<int64_t>(Batches, 1));
  int64_t ByThreads = (Rows + Want - 1) / Want;
  int64_t ByWork = (int64_t(1) << 15) / std::max<int64_t>(1, K * N) + 1;
  return std::max<int64_t>(1, std::min(Rows, std::max(ByThreads, ByWork)));
}

template <typename T> llvm::Error matmul(KernelContext &Ctx) {
  const Tensor &A = *Ctx.input(0), &B = *Ctx.input(1);
  if (A.type().Elem != B.type().Elem)
    return inputError("matmul operands differ in type: {0} and {1}",
                      elementTypeName(A.type().Elem),
                      elementTypeName(B.type().Elem));
  std::vector<int64_t> SA = sizesOf(A), SB = sizesOf(B);
  if (SA.empty() || SB.empty())
    return inputError("matmul operands must have rank >= 1");
  bool VecA = SA.size() == 1, VecB = SB.size() == 1;
  if (VecA)
    SA.insert(SA.begin(), 1);
  if (VecB)
    SB.push_back(1);
  int64_t M = SA[SA.size() - 2], K = SA.back(), N = SB.back();
  if (SB[SB.size() - 2] != K)
    return inputError("matmul inner dims differ: {0} vs {1}",
                      toString(makeShape(sizesOf(A))),
                      toString(makeShape(sizesOf(B))));
  std::vector<int64_t> BA(SA.begin(), SA.end() - 2), BB(SB.begin(), SB.end() - 2);
  auto Batch = broadcastSizes(BA, BB);
  if (!Batch)
    return inputError("matmul batch dims do not broadcast: {0} vs {1}",
                      toString(makeShape(sizesOf(A))),
                      toString(makeShape(sizesOf(B))));
  std::vector<int64_t> OutSizes = *Batch;
  if (!VecA)
    OutSizes.push_back(M);
  if (!VecB)
    OutSizes.push_back(N);
  Tensor Y = makeTensor(A.type().Elem, OutSizes);
  int64_t NumBatch = nn::product(*Batch, 0, Batch->size());

  // Per-batch element offsets into a and b (0 along broadcast dims).
  std::vector<int64_t> OffA(size_t(NumBatch), 0), OffB(size_t(NumBatch), 0);
  int64_t RowsA = M;
  if (nn::product(BB, 0, BB.size()) == 1) {
    // b is one matrix: fold a's batch into its rows.
    RowsA = M * nn::product(BA, 0, BA.size());
    NumBatch = 1;
  } else {
    size_t R = Batch->size();
    std::vector<int64_t> Coord(R);
    for (int64_t Bi = 0; Bi < NumBatch; ++Bi) {
      int64_t Flat = Bi;
      for (size_t D = R; D-- > 0;) {
        Coord[D] = Flat % (*Batch)[D];
        Flat /= (*Batch)[D];
      }
      int64_t SAcc = M * K, SBcc = K * N;
      for (size_t D = R; D-- > 0;) {
        size_t DA = D + BA.size() - R, DB = D + BB.size() - R;
        if (D + BA.size() >= R) {
          if (BA[DA] != 1)
            OffA[size_t(Bi)] += Coord[D] * SAcc;
          SAcc *= BA[DA];
        }
        if (D + BB.size() >= R) {
          if (BB[DB] != 1)
            OffB[size_t(Bi)] += Coord[D] * SBcc;
          SBcc *= BB[DB];
        }
      }
    }
  }
  if (Y.numElements() == 0) {
    Ctx.Outputs.push_back(std::move(Y));
    return llvm::Error::success();
  }
  const T *AD = dataAs<T>(A), *BD = dataAs<T>(B);
  T *YD = mutableData<T>(Y);
  int64_t Tile = rowTile(RowsA, K, N, NumBatch, Ctx.Pool.threads());
  int64_t Tiles = (RowsA + Tile - 1) / Tile;
  Ctx.Pool.parallelFor(NumBatch * Tiles, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t Item = Begin; Item < End; ++Item) {
      int64_t Bi = Item / Tiles, R0 = (Item % Tiles) * Tile;
      int64_t Len = std::min(Tile, RowsA - R0);
      ConstMat<T> Am(AD + OffA[size_t(Bi)] + R0 * K, Len, K,
                     Eigen::OuterStride<>(K));
      ConstMat<T> Bm(BD + OffB[size_t(Bi)], K, N, Eigen::OuterStride<>(N));
      MutMat<T> Ym(YD + Bi * RowsA * N + R0 * N, Len, N,
                   Eigen::OuterStride<>(N));
      Ym.noalias() = Am * Bm;
    }
  });
  applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

template <typename T> llvm::Error gemm(KernelContext &Ctx) {
  const Tensor &A = *Ctx.input(0), &B = *Ctx.input(1);
  std::vector<int64_t> SA = sizesOf(A), SB = sizesOf(B);
  if (SA.size() != 2 || SB.size() != 2 || A.type().Elem != B.type().Elem)
    return inputError("gemm needs two 2-D operands of one type");
  bool TA = Ctx.N.getInt("trans_a") != 0, TB = Ctx.N.getInt("trans_b") != 0;
  T Alpha = T(Ctx.N.getFloat("alpha")), Beta = T(Ctx.N.getFloat("beta"));
  int64_t M = TA ? SA[1] : SA[0], K = TA ? SA[0] : SA[1];
  int64_t KB = TB ? SB[1] : SB[0], N = TB ? SB[0] : SB[1];
  if (K != KB)
    return inputError("gemm inner dims differ: {0} vs {1}", K, KB);
  // c broadcasts to [M, N]: right-aligned, each dim 1 or equal.
  const Tensor *C = nn::isAbsent(Ctx.input(2)) ? nullptr : Ctx.input(2);
  int64_t CM = 1, CN = 1;
  std::vector<T> CV;
  if (C) {
    std::vector<int64_t> SC = sizesOf(*C);
    if (SC.size() > 2)
      return inputError("gemm c must have rank <= 2");
    CN = SC.empty() ? 1 : SC.back();
    CM = SC.size() == 2 ? SC[0] : 1;
    if ((CM != 1 && CM != M) || (CN != 1 && CN != N))
      return inputError("gemm c {0} does not broadcast to [{1},{2}]",
                        toString(makeShape(SC)), M, N);
    CV = nn::valuesAs<T>(*C);
  }
  Tensor Y = makeTensor(A.type().Elem, {M, N});
  const T *AD = dataAs<T>(A), *BD = dataAs<T>(B);
  T *YD = mutableData<T>(Y);
  ConstMat<T> Am(AD, SA[0], SA[1], Eigen::OuterStride<>(SA[1]));
  ConstMat<T> Bm(BD, SB[0], SB[1], Eigen::OuterStride<>(SB[1]));
  int64_t Tile = rowTile(M, K, N, 1, Ctx.Pool.threads());
  int64_t Tiles = M ? (M + Tile - 1) / Tile : 0;
  Ctx.Pool.parallelFor(Tiles, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t Item = Begin; Item < End; ++Item) {
      int64_t R0 = Item * Tile, Len = std::min(Tile, M - R0);
      MutMat<T> Ym(YD + R0 * N, Len, N, Eigen::OuterStride<>(N));
      if (TA && TB)
        Ym.noalias() = Am.transpose().middleRows(R0, Len) * Bm.transpose();
      else if (TA)
        Ym.noalias() = Am.transpose().middleRows(R0, Len) * Bm;
      else if (TB)
        Ym.noalias() = Am.middleRows(R0, Len) * Bm.transpose();
      else
        Ym.noalias() = Am.middleRows(R0, Len) * Bm;
      if (Alpha != T(1))
        Ym *= Alpha;
      if (C && Beta != T(0))
        for (int64_t I = 0; I < Len; ++I)
          for (int64_t J = 0; J < N; ++J)
            Ym(I, J) += Beta * CV[size_t((CM == 1 ? 0 : R0 + I) * CN +
                                         (CN == 1 ? 0 : J))];
    }
  });
  applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

template <typename T> llvm::Error linear(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0), &W = *Ctx.input(1);
  std::vector<int64_t> SX = sizesOf(X), SW = sizesOf(W);
  if (SX.empty() || SW.size() != 2 || X.type().Elem != W.type().Elem)
    return inputError("linear needs x of rank >= 1 and a 2-D weight of the "
                      "same type");
  int64_t In = SX.back(), Out = SW[0];
  if (SW[1] != In)
    return inputError("linear input has {0} features, weight expects {1}", In,
                      SW[1]);
  std::vector<T> Bias;
  if (!nn::isAbsent(Ctx.input(2))) {
    Bias = nn::valuesAs<T>(*Ctx.input(2));
    if (int64_t(Bias.size()) != Out && Bias.size() != 1)
      return inputError("linear bias has {0} values for {1} outputs",
                        Bias.size(), Out);
  }
  std::vector<int64_t> SY = SX;
  SY.back() = Out;
  Tensor Y = makeTensor(X.type().Elem, SY);
  int64_t Rows = nn::product(SX, 0, SX.size() - 1);
  ConstMat<T> Wm(dataAs<T>(W), Out, In, Eigen::OuterStride<>(In));
  const T *XD = dataAs<T>(X);
  T *YD = mutableData<T>(Y);
  int64_t Tile = rowTile(Rows, In, Out, 1, Ctx.Pool.threads());
  int64_t Tiles = Rows ? (Rows + Tile - 1) / Tile : 0;
  Ctx.Pool.parallelFor(Tiles, 1, [&](int64_t Begin, int64_t End) {
    for (int64_t Item = Begin; Item < End; ++Item) {
      int64_t R0 = Item * Tile, Len = std::min(Tile, Rows - R0);
      ConstMat<T> Xm(XD + R0 * In, Len, In, Eigen::OuterStride<>(In));
      MutMat<T> Ym(YD + R0 * Out, Len, Out, Eigen::OuterStride<>(Out));
      Ym.noalias() = Xm * Wm.transpose();
      if (!Bias.empty())
        for (int64_t I = 0; I < Len; ++I)
          for (int64_t J = 0; J < Out; ++J)
            Ym(I, J) += Bias[Bias.size() == 1 ? 0 : size_t(J)];
    }
  });
  applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

} // namespace

void registerMatMulKernels() {
  registerKernel("matmul", [](KernelContext &C) {
    return nn::dispatchFloat(C, matmul<float>, matmul<double>);
  });
  registerKernel("gemm", [](KernelContext &C) {
    return nn::dispatchFloat(C, gemm<float>, gemm<double>);
  });
  registerKernel("linear", [](KernelContext &C) {
    return nn::dispatchFloat(C, linear<float>, linear<double>);
  });
}

} // namespace kiln
