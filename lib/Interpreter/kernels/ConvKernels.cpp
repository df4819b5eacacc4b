// Convolution kernels of the reference interpreter: conv and conv_transpose,
// N-d (1-D, 2-D, 3-D...), NCHW, with groups, strides, dilations, asymmetric
// pads, an optional bias and a fused activation (applied after the bias).
// Both go through Eigen GEMM, because calibration runs these thousands of
// times.
//
// conv (weight [M, C/G, k...]), per batch n and group g:
//   col[(c, k), p] = x[n, g*C/G + c, o(p)*s - padBegin + k*d]  (0 outside)
//   y[n, g*M/G + m, p] = sum_(c,k) w[g*M/G + m, c, k] * col[(c, k), p] + b[m]
// where p runs over output positions o(p) (im2col). The output positions are
// cut into tiles so that work items (n, g, tile) keep every thread busy even
// at batch 1, and each item's col buffer stays small. A 1x1, stride-1,
// unpadded conv skips im2col: col is the input itself (a pure GEMM). A 2-D
// depthwise conv skips the GEMM (DepthwiseConv.cpp): per output channel it
// is a 1-row GEMV that direct loops compute with the same sums.
//
// conv_transpose (weight [C, M/G, k...]) is the adjoint: per (n, g, m)
//   col[k, p] = sum_c w[g*C/G + c, m, k] * x[n, g*C/G + c, p]    (GEMM)
//   y[n, g*M/G + m, i(p)*s - padBegin + k*d] += col[k, p]        (col2im)
// Different m write disjoint output channels, so (n, g, m) items run in
// parallel without races. Output size per axis:
//   s*(in-1) + output_padding + (k-1)*d + 1 - padBegin - padEnd.
#include "Interpreter/kernels/ConvGeometry.h"
#include "Interpreter/kernels/FusedActivation.h"

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

template <typename T> llvm::Error conv(KernelContext &Ctx) {
  auto GmOr = readConvGeom(Ctx, /*Transposed=*/false);
  if (!GmOr)
    return GmOr.takeError();
  const ConvGeom &Gm = *GmOr;
  size_t NS = Gm.In.size();
  bool Pointwise = true;
  for (size_t D = 0; D < NS; ++D)
    Pointwise &= Gm.K[D] == 1 && Gm.W.Strides[D] == 1 &&
                 Gm.W.PadBegin[D] == 0 && Gm.W.PadEnd[D] == 0;
  int64_t KRows = Gm.Cg * Gm.KP;
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, convOutputSizes(Gm));
  if (Y.numElements() == 0) {
    Ctx.Outputs.push_back(std::move(Y));
    return llvm::Error::success();
  }
  const T *X = dataAs<T>(*Ctx.input(0));
  const T *W = dataAs<T>(*Ctx.input(1));
  std::vector<T> Bias;
  if (Ctx.input(2))
    Bias = nn::valuesAs<T>(*Ctx.input(2));
  T *YD = mutableData<T>(Y);

  if (isDirectDepthwise(Gm, W)) {
    Ctx.Pool.parallelFor(Gm.N * Gm.M, 1, [&](int64_t Begin, int64_t End) {
      for (int64_t Item = Begin; Item < End; ++Item) {
        T *Plane = YD + Item * Gm.OutP;
        depthwiseConv2D(X, W, Gm, Item / Gm.M, Item % Gm.M, Plane);
        if (!Bias.empty())
          for (int64_t P = 0; P < Gm.OutP; ++P)
            Plane[P] += Bias[size_t(Item % Gm.M)];
      }
    });
    applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
    Ctx.Outputs.push_back(std::move(Y));
    return llvm::Error::success();
  }

  // Tile the output positions: at most ~256K col elements per item, and
  // enough items for every thread even at batch 1 with one group.
  int64_t Tile =
      std::max<int64_t>(16, (int64_t(1) << 18) / std::max<int64_t>(KRows, 1));
  int64_t Wanted = 2 * int64_t(Ctx.Pool.threads());
  int64_t TilesPerPlane = (Wanted + Gm.N * Gm.G - 1) / (Gm.N * Gm.G);
  Tile = std::min(Tile, std::max<int64_t>(16, (Gm.OutP + TilesPerPlane - 1) /
                                                  TilesPerPlane));
  Tile = std::min(Tile, Gm.OutP);
  int64_t NumTiles = (Gm.OutP + Tile - 1) / Tile;

  std::vector<int64_t> Base; // im2col's 2-D path does without
  if (!Pointwise && NS != 2)
    Base = nn::windowOrigins(Gm.Out, Gm.W);

  Ctx.Pool.parallelFor(
      Gm.N * Gm.G * NumTiles, 1, [&](int64_t Begin, int64_t End) {
        std::vector<T> Col(Pointwise ? 0 : size_t(KRows * Tile));
        for (int64_t Item = Begin; Item < End; ++Item) {
          int64_t T0 = Item % NumTiles, NG = Item / NumTiles;
          int64_t Nn = NG / Gm.G, G = NG % Gm.G;
          int64_t P0 = T0 * Tile, Len = std::min(Tile, Gm.OutP - P0);
          const T *Xg = X + (Nn * Gm.C + G * Gm.Cg) * Gm.InP;
          ConstMat<T> Wg(W + G * Gm.Mg * KRows, Gm.Mg, KRows,
                         Eigen::OuterStride<>(KRows));
          MutMat<T> Yg(YD + (Nn * Gm.M + G * Gm.Mg) * Gm.OutP + P0, Gm.Mg,
                       Len, Eigen::OuterStride<>(Gm.OutP));
          if (Pointwise) {
            ConstMat<T> Xm(Xg + P0, Gm.Cg, Len, Eigen::OuterStride<>(Gm.InP));
            Yg.noalias() = Wg * Xm;
          } else {
            im2col(Xg, Gm, Base, P0, Len, Col.data());
            ConstMat<T> Cm(Col.data(), KRows, Len, Eigen::OuterStride<>(Len));
            Yg.noalias() = Wg * Cm;
          }
          if (!Bias.empty())
            for (int64_t M = 0; M < Gm.Mg; ++M)
              Yg.row(M).array() += Bias[size_t(G * Gm.Mg + M)];
        }
      });
  applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

template <typename T> llvm::Error convTranspose(KernelContext &Ctx) {
  auto GmOr = readConvGeom(Ctx, /*Transposed=*/true);
  if (!GmOr)
    return GmOr.takeError();
  const ConvGeom &Gm = *GmOr;
  size_t NS = Gm.In.size();
  // Window origins are per *input* position here.
  std::vector<int64_t> Base = nn::windowOrigins(Gm.In, Gm.W);
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, convOutputSizes(Gm));
  const T *X = dataAs<T>(*Ctx.input(0));
  const T *W = dataAs<T>(*Ctx.input(1));
  std::vector<T> Bias;
  if (Ctx.input(2))
    Bias = nn::valuesAs<T>(*Ctx.input(2));
  T *YD = mutableData<T>(Y);

  Ctx.Pool.parallelFor(Gm.N * Gm.G * Gm.Mg, 1, [&](int64_t Begin,
                                                    int64_t End) {
    RowMat<T> Col(Gm.KP, Gm.InP);
    std::vector<int64_t> Kc(NS);
    for (int64_t Item = Begin; Item < End; ++Item) {
      int64_t M = Item % Gm.Mg, NG = Item / Gm.Mg;
      int64_t Nn = NG / Gm.G, G = NG % Gm.G;
      ConstMat<T> Xg(X + (Nn * Gm.C + G * Gm.Cg) * Gm.InP, Gm.Cg, Gm.InP,
                     Eigen::OuterStride<>(Gm.InP));
      ConstMat<T> Wm(W + (G * Gm.Cg * Gm.Mg + M) * Gm.KP, Gm.Cg, Gm.KP,
                     Eigen::OuterStride<>(Gm.Mg * Gm.KP));
      Col.noalias() = Wm.transpose() * Xg;
      T *Yc = YD + (Nn * Gm.M + G * Gm.Mg + M) * Gm.OutP;
      if (!Bias.empty())
        std::fill(Yc, Yc + Gm.OutP, Bias[size_t(G * Gm.Mg + M)]);
      for (int64_t K = 0; K < Gm.KP; ++K) {
        nn::decode(K, Gm.K, Kc);
        const T *Row = Col.data() + K * Gm.InP;
        for (int64_t P = 0; P < Gm.InP; ++P) {
          int64_t Off = 0;
          bool Inside = true;
          for (size_t D = 0; D < NS; ++D) {
            int64_t O = Base[D * size_t(Gm.InP) + size_t(P)] +
                        Kc[D] * Gm.W.Dilations[D];
            if (O < 0 || O >= Gm.Out[D]) {
              Inside = false;
              break;
            }
            Off = Off * Gm.Out[D] + O;
          }
          if (Inside)
            Yc[Off] += Row[P];
        }
      }
    }
  });
  applyFusedActivation(Ctx.N, YD, Y.numElements(), Ctx.Pool);
  Ctx.Outputs.push_back(std::move(Y));
  return llvm::Error::success();
}

} // namespace

void registerConvKernels() {
  registerKernel("conv", [](KernelContext &C) {
    return nn::dispatchFloat(C, conv<float>, conv<double>);
  });
  registerKernel("conv_transpose", [](KernelContext &C) {
    return nn::dispatchFloat(C, convTranspose<float>, convTranspose<double>);
  });
}

} // namespace kiln
