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
// unpadded conv skips im2col: col is the input itself (a pure GEMM).
//
// conv_transpose (weight [C, M/G, k...]) is the adjoint: per (n, g, m)
//   col[k, p] = sum_c w[g*C/G + c, m, k] * x[n, g*C/G + c, p]    (GEMM)
//   y[n, g*M/G + m, i(p)*s - padBegin + k*d] += col[k, p]        (col2im)
// Different m write disjoint output channels, so (n, g, m) items run in
// parallel without races. Output size per axis:
//   s*(in-1) + output_padding + (k-1)*d + 1 - padBegin - padEnd.
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

/// Sizes of one convolution, all runtime values.
struct ConvGeom {
  int64_t N = 0, C = 0, M = 0, G = 1, Cg = 0, Mg = 0;
  std::vector<int64_t> In, K, Out; // spatial sizes
  nn::WindowParams W;
  int64_t InP = 1, KP = 1, OutP = 1; // products of In, K, Out
};

/// im2col of one group slice X ([Cg, In...]) for output positions
/// [P0, P0+Len): Col is [Cg*KP, Len] row-major.
template <typename T>
void im2col(const T *X, const ConvGeom &Gm, const std::vector<int64_t> &Base,
            int64_t P0, int64_t Len, T *Col) {
  size_t NS = Gm.In.size();
  std::vector<int64_t> Kc(NS);
  for (int64_t R = 0, Rows = Gm.Cg * Gm.KP; R < Rows; ++R) {
    const T *Xc = X + (R / Gm.KP) * Gm.InP;
    nn::decode(R % Gm.KP, Gm.K, Kc);
    T *Row = Col + R * Len;
    for (int64_t J = 0; J < Len; ++J) {
      int64_t Off = 0;
      bool Inside = true;
      for (size_t D = 0; D < NS; ++D) {
        int64_t I = Base[D * size_t(Gm.OutP) + size_t(P0 + J)] +
                    Kc[D] * Gm.W.Dilations[D];
        if (I < 0 || I >= Gm.In[D]) {
          Inside = false;
          break;
        }
        Off = Off * Gm.In[D] + I;
      }
      Row[J] = Inside ? Xc[Off] : T(0);
    }
  }
}

/// Reads the operands common to conv and conv_transpose. Transposed: the
/// weight is [C, M/G, k...] instead of [M, C/G, k...].
llvm::Expected<ConvGeom> readGeom(const KernelContext &Ctx, bool Transposed) {
  const Tensor &X = *Ctx.input(0), &Wt = *Ctx.input(1);
  std::vector<int64_t> XS = sizesOf(X), WS = sizesOf(Wt);
  if (XS.size() < 3 || WS.size() != XS.size())
    return inputError("input {0} and weight {1} must have the same rank >= 3",
                      toString(makeShape(XS)), toString(makeShape(WS)));
  if (Wt.type().Elem != X.type().Elem)
    return inputError("weight type {0} differs from input type {1}",
                      elementTypeName(Wt.type().Elem),
                      elementTypeName(X.type().Elem));
  size_t NS = XS.size() - 2;
  ConvGeom Gm;
  Gm.N = XS[0];
  Gm.C = XS[1];
  Gm.G = Ctx.N.getInt("group");
  Gm.In.assign(XS.begin() + 2, XS.end());
  Gm.K.assign(WS.begin() + 2, WS.end());
  if (Gm.G < 1 || Gm.C % Gm.G)
    return inputError("group={0} does not divide {1} input channels", Gm.G,
                      Gm.C);
  Gm.Cg = Gm.C / Gm.G;
  if (Transposed) {
    if (WS[0] != Gm.C)
      return inputError("weight has {0} input channels, input has {1}", WS[0],
                        Gm.C);
    Gm.Mg = WS[1];
    Gm.M = Gm.Mg * Gm.G;
  } else {
    if (WS[1] != Gm.Cg)
      return inputError("input has {0} channels but weight expects {1} x "
                        "group {2}",
                        Gm.C, WS[1], Gm.G);
    Gm.M = WS[0];
    if (Gm.M % Gm.G)
      return inputError("group={0} does not divide {1} output channels", Gm.G,
                        Gm.M);
    Gm.Mg = Gm.M / Gm.G;
  }
  auto Win = nn::readWindow(Ctx.N, NS, /*HasDilations=*/true);
  if (!Win)
    return Win.takeError();
  Gm.W = std::move(*Win);
  std::vector<int64_t> OutPad(NS, 0);
  if (Transposed) {
    auto OP = spatialAttr(Ctx.N, "output_padding", NS, 0);
    if (!OP)
      return OP.takeError();
    OutPad = *OP;
  }
  for (size_t D = 0; D < NS; ++D) {
    int64_t O =
        Transposed
            ? Gm.W.Strides[D] * (Gm.In[D] - 1) + OutPad[D] +
                  (Gm.K[D] - 1) * Gm.W.Dilations[D] + 1 - Gm.W.PadBegin[D] -
                  Gm.W.PadEnd[D]
            : slidingOutputSize(Gm.In[D], Gm.K[D], Gm.W.Strides[D],
                                Gm.W.PadBegin[D], Gm.W.PadEnd[D],
                                Gm.W.Dilations[D], false);
    if (O <= 0 || Gm.K[D] < 1)
      return inputError("kernel {0} does not fit input size {1} on spatial "
                        "axis {2}",
                        Gm.K[D], Gm.In[D], D);
    Gm.Out.push_back(O);
  }
  Gm.InP = nn::product(Gm.In, 0, NS);
  Gm.KP = nn::product(Gm.K, 0, NS);
  Gm.OutP = nn::product(Gm.Out, 0, NS);
  const Tensor *B = Ctx.input(2);
  if (B && B->numElements() != Gm.M)
    return inputError("bias has {0} values for {1} output channels",
                      B->numElements(), Gm.M);
  return Gm;
}

std::vector<int64_t> outputSizes(const ConvGeom &Gm) {
  std::vector<int64_t> S = {Gm.N, Gm.M};
  S.insert(S.end(), Gm.Out.begin(), Gm.Out.end());
  return S;
}

template <typename T> llvm::Error conv(KernelContext &Ctx) {
  auto GmOr = readGeom(Ctx, /*Transposed=*/false);
  if (!GmOr)
    return GmOr.takeError();
  const ConvGeom &Gm = *GmOr;
  size_t NS = Gm.In.size();
  bool Pointwise = true;
  for (size_t D = 0; D < NS; ++D)
    Pointwise &= Gm.K[D] == 1 && Gm.W.Strides[D] == 1 &&
                 Gm.W.PadBegin[D] == 0 && Gm.W.PadEnd[D] == 0;
  int64_t KRows = Gm.Cg * Gm.KP;
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, outputSizes(Gm));
  if (Y.numElements() == 0) {
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

  std::vector<int64_t> Base;
  if (!Pointwise)
    Base = nn::windowOrigins(Gm.Out, Gm.W);
  const T *X = dataAs<T>(*Ctx.input(0));
  const T *W = dataAs<T>(*Ctx.input(1));
  std::vector<T> Bias;
  if (Ctx.input(2))
    Bias = nn::valuesAs<T>(*Ctx.input(2));
  T *YD = mutableData<T>(Y);

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
  auto GmOr = readGeom(Ctx, /*Transposed=*/true);
  if (!GmOr)
    return GmOr.takeError();
  const ConvGeom &Gm = *GmOr;
  size_t NS = Gm.In.size();
  // Window origins are per *input* position here.
  std::vector<int64_t> Base = nn::windowOrigins(Gm.In, Gm.W);
  Tensor Y = makeTensor(Ctx.input(0)->type().Elem, outputSizes(Gm));
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
