// Depthwise 2-D conv (one input channel per group), computed directly
// instead of through im2col: for each output row and kernel tap (kh, kw),
//   y[oh, ow] += w[kh, kw] * x[oh*sh - ph + kh*dh, ow*sw - pw + kw*dw]
// over the output columns whose input is inside the image (one range per
// tap, as in Im2col.cpp). Every output adds the same products in the same
// order (taps ascending, from +0) as the im2col + GEMV path, whose padding
// products w * 0 add nothing, so the results are bit-identical to it; that
// is why weights that are not finite (inf * 0 is NaN) take the im2col path.
// With a channel multiplier the GEMM it replaces may order its sums
// differently: the results then agree within float rounding.
#include "Interpreter/kernels/ConvGeometry.h"

#include <algorithm>
#include <cmath>

namespace kiln {

template <typename T> bool isDirectDepthwise(const ConvGeom &Gm, const T *W) {
  if (Gm.In.size() != 2 || Gm.Cg != 1)
    return false;
  for (int64_t I = 0, E = Gm.M * Gm.KP; I < E; ++I)
    if (!std::isfinite(W[I]))
      return false;
  return true;
}

template <typename T>
void depthwiseConv2D(const T *X, const T *W, const ConvGeom &Gm, int64_t Nn,
                     int64_t Oc, T *Y) {
  const int64_t IH = Gm.In[0], IW = Gm.In[1], KH = Gm.K[0], KW = Gm.K[1];
  const int64_t OH = Gm.Out[0], OW = Gm.Out[1];
  const int64_t SH = Gm.W.Strides[0], SW = Gm.W.Strides[1];
  const int64_t DH = Gm.W.Dilations[0], DW = Gm.W.Dilations[1];
  const int64_t PH = Gm.W.PadBegin[0], PW = Gm.W.PadBegin[1];
  const T *Xc = X + (Nn * Gm.C + Oc / Gm.Mg) * Gm.InP;
  const T *Wc = W + Oc * Gm.KP;
  for (int64_t Oh = 0; Oh < OH; ++Oh) {
    T *Yr = Y + Oh * OW;
    for (int64_t Kh = 0; Kh < KH; ++Kh) {
      const int64_t Ih = Oh * SH - PH + Kh * DH;
      if (Ih < 0 || Ih >= IH)
        continue;
      const T *Xr = Xc + Ih * IW;
      for (int64_t Kw = 0; Kw < KW; ++Kw) {
        const T Wt = Wc[Kh * KW + Kw];
        // Input column ow * SW + ColOff is inside [0, IW) for ow in [Lo, Hi).
        const int64_t ColOff = Kw * DW - PW;
        const int64_t Lo =
            std::min(OW, ColOff >= 0 ? int64_t(0) : (-ColOff + SW - 1) / SW);
        const int64_t Hi = std::max(
            Lo, std::min(OW, IW - ColOff <= 0 ? int64_t(0)
                                              : (IW - 1 - ColOff) / SW + 1));
        if (SW == 1)
          for (int64_t Ow = Lo; Ow < Hi; ++Ow)
            Yr[Ow] += Wt * Xr[Ow + ColOff];
        else
          for (int64_t Ow = Lo; Ow < Hi; ++Ow)
            Yr[Ow] += Wt * Xr[Ow * SW + ColOff];
      }
    }
  }
}

template bool isDirectDepthwise<float>(const ConvGeom &, const float *);
template bool isDirectDepthwise<double>(const ConvGeom &, const double *);
template void depthwiseConv2D<float>(const float *, const float *,
                                     const ConvGeom &, int64_t, int64_t,
                                     float *);
template void depthwiseConv2D<double>(const double *, const double *,
                                      const ConvGeom &, int64_t, int64_t,
                                      double *);

} // namespace kiln
