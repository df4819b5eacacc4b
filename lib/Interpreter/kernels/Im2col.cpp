// im2col for conv: Col[(c, k), j] = x[c, o(P0 + j) * s - padBegin + k * d],
// zero where the window reads padding. Calibration runs it for every conv of
// every sample, so 2-D (nearly every conv) has its own path: along an output
// row the input column moves by the stride, so the valid output columns of a
// kernel column kw form one range, computed once per row of Col; the copy is
// then a plain strided loop with the zeros of the padding on either side.
// Other ranks decode every position. Both write the same values.
#include "Interpreter/kernels/ConvGeometry.h"

#include <algorithm>

namespace kiln {

namespace {

template <typename T>
void im2colND(const T *X, const ConvGeom &Gm, const std::vector<int64_t> &Base,
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

/// Smallest Q >= 0 with Q * S >= A (S > 0).
int64_t ceilDivNonNeg(int64_t A, int64_t S) {
  return A <= 0 ? 0 : (A + S - 1) / S;
}

template <typename T>
void im2col2D(const T *X, const ConvGeom &Gm, int64_t P0, int64_t Len, T *Col) {
  const int64_t IH = Gm.In[0], IW = Gm.In[1], KW = Gm.K[1], OW = Gm.Out[1];
  const int64_t SH = Gm.W.Strides[0], SW = Gm.W.Strides[1];
  const int64_t DH = Gm.W.Dilations[0], DW = Gm.W.Dilations[1];
  const int64_t PH = Gm.W.PadBegin[0], PW = Gm.W.PadBegin[1];
  for (int64_t R = 0, Rows = Gm.Cg * Gm.KP; R < Rows; ++R) {
    const int64_t C = R / Gm.KP, Kh = (R % Gm.KP) / KW, Kw = R % KW;
    const T *Xc = X + C * Gm.InP;
    T *Row = Col + R * Len;
    // Input column of output column ow: ow * SW + ColOff, inside [0, IW)
    // for ow in [Lo, Hi).
    const int64_t ColOff = Kw * DW - PW;
    const int64_t Lo = std::min(OW, ceilDivNonNeg(-ColOff, SW));
    const int64_t Hi = std::max(
        Lo, std::min(OW, IW - ColOff <= 0 ? int64_t(0)
                                          : (IW - 1 - ColOff) / SW + 1));
    for (int64_t J = 0, P = P0; J < Len;) {
      const int64_t Oh = P / OW, Ow0 = P - Oh * OW;
      const int64_t Ow1 = std::min(OW, Ow0 + (Len - J));
      T *Dst = Row + J; // Dst[ow - Ow0] is output column ow of this row
      const int64_t Ih = Oh * SH - PH + Kh * DH;
      int64_t A = Ow1, B = Ow1; // the columns that read the input
      if (Ih >= 0 && Ih < IH) {
        A = std::clamp(Lo, Ow0, Ow1);
        B = std::clamp(Hi, A, Ow1);
      }
      std::fill(Dst, Dst + (A - Ow0), T(0));
      if (A < B) {
        const T *Src = Xc + Ih * IW; // Src[ow * SW + ColOff], ow in [A, B)
        if (SW == 1)
          std::copy(Src + (A + ColOff), Src + (B + ColOff), Dst + (A - Ow0));
        else
          for (int64_t Ow = A; Ow < B; ++Ow)
            Dst[Ow - Ow0] = Src[Ow * SW + ColOff];
      }
      std::fill(Dst + (B - Ow0), Dst + (Ow1 - Ow0), T(0));
      J += Ow1 - Ow0;
      P += Ow1 - Ow0;
    }
  }
}

} // namespace

template <typename T>
void im2col(const T *X, const ConvGeom &Gm, const std::vector<int64_t> &Base,
            int64_t P0, int64_t Len, T *Col) {
  if (Gm.In.size() == 2)
    im2col2D(X, Gm, P0, Len, Col);
  else
    im2colND(X, Gm, Base, P0, Len, Col);
}

template void im2col<float>(const float *, const ConvGeom &,
                            const std::vector<int64_t> &, int64_t, int64_t,
                            float *);
template void im2col<double>(const double *, const ConvGeom &,
                             const std::vector<int64_t> &, int64_t, int64_t,
                             double *);

} // namespace kiln
