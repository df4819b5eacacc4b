// The host NNAPI device: the parameters of the convolution and pooling
// operations (NHWC), read from an operation's inputs, and the taps of one
// convolution output, shared by the float and the quantized kernels.
#pragma once

#include "HostDevice.h"

namespace kiln::nnapi::host {

struct ConvParams {
  int64_t N, H, W, C, KH, KW, OC, OH, OW;
  int64_t PadL, PadT, StrideW, StrideH, DilW = 1, DilH = 1;
  int64_t Groups = 1, Multiplier = 0; // Multiplier: depthwise only
  bool Transpose = false;
  int32_t Fuse;
};

inline ConvParams convParams(const OpContext &C) {
  ConvParams P;
  const Operand &In = C.in(0), &F = C.in(1), &Out = C.out();
  P.N = In.Dims[0];
  P.H = In.Dims[1];
  P.W = In.Dims[2];
  P.C = In.Dims[3];
  P.KH = F.Dims[1];
  P.KW = F.Dims[2];
  P.OH = Out.Dims[1];
  P.OW = Out.Dims[2];
  P.OC = Out.Dims[3];
  P.PadL = C.i32(3);
  P.PadT = C.i32(5);
  P.StrideW = C.i32(7);
  P.StrideH = C.i32(8);
  switch (C.Op.Type) {
  case CONV_2D:
    P.Fuse = C.i32(9);
    if (C.inputCount() == 13) {
      P.DilW = C.i32(11);
      P.DilH = C.i32(12);
    }
    break;
  case DEPTHWISE_CONV_2D:
    P.Multiplier = C.i32(9);
    P.Fuse = C.i32(10);
    if (C.inputCount() == 14) {
      P.DilW = C.i32(12);
      P.DilH = C.i32(13);
    }
    break;
  case GROUPED_CONV_2D:
    P.Groups = C.i32(9);
    P.Fuse = C.i32(10);
    break;
  default: // TRANSPOSE_CONV_2D
    P.Transpose = true;
    P.Fuse = C.i32(9);
    break;
  }
  return P;
}

/// Calls Tap(input element offset, filter element offset) for every product
/// that output (Nb, Oy, Ox, Oc) sums.
template <typename Fn>
void forConvTaps(const ConvParams &P, int64_t Nb, int64_t Oy, int64_t Ox,
                 int64_t Oc, Fn Tap) {
  int64_t IcBegin, IcCount;
  if (P.Multiplier) {
    IcBegin = Oc / P.Multiplier;
    IcCount = 1;
  } else {
    const int64_t ICg = P.C / P.Groups, OCg = P.OC / P.Groups;
    IcBegin = Oc / OCg * ICg;
    IcCount = ICg;
  }
  for (int64_t Ky = 0; Ky < P.KH; ++Ky) {
    int64_t Iy;
    if (P.Transpose) {
      const int64_t T = Oy + P.PadT - Ky;
      if (T < 0 || T % P.StrideH)
        continue;
      Iy = T / P.StrideH;
    } else {
      Iy = Oy * P.StrideH - P.PadT + Ky * P.DilH;
    }
    if (Iy < 0 || Iy >= P.H)
      continue;
    for (int64_t Kx = 0; Kx < P.KW; ++Kx) {
      int64_t Ix;
      if (P.Transpose) {
        const int64_t T = Ox + P.PadL - Kx;
        if (T < 0 || T % P.StrideW)
          continue;
        Ix = T / P.StrideW;
      } else {
        Ix = Ox * P.StrideW - P.PadL + Kx * P.DilW;
      }
      if (Ix < 0 || Ix >= P.W)
        continue;
      const int64_t InBase = ((Nb * P.H + Iy) * P.W + Ix) * P.C;
      if (P.Multiplier) {
        // Filter [1, KH, KW, OC].
        Tap(size_t(InBase + IcBegin), size_t((Ky * P.KW + Kx) * P.OC + Oc));
      } else {
        // Filter [OC, KH, KW, IC / groups].
        const int64_t WBase = ((Oc * P.KH + Ky) * P.KW + Kx) * IcCount;
        for (int64_t I = 0; I < IcCount; ++I)
          Tap(size_t(InBase + IcBegin + I), size_t(WBase + I));
      }
    }
  }
}

struct PoolParams {
  int64_t N, H, W, C, OH, OW, PadL, PadT, StrideW, StrideH, FW, FH;
  int32_t Fuse;
};

inline PoolParams poolParams(const OpContext &C) {
  PoolParams P;
  const Operand &In = C.in(0), &Out = C.out();
  P.N = In.Dims[0];
  P.H = In.Dims[1];
  P.W = In.Dims[2];
  P.C = In.Dims[3];
  P.OH = Out.Dims[1];
  P.OW = Out.Dims[2];
  P.PadL = C.i32(1);
  P.PadT = C.i32(3);
  P.StrideW = C.i32(5);
  P.StrideH = C.i32(6);
  P.FW = C.i32(7);
  P.FH = C.i32(8);
  P.Fuse = C.i32(9);
  return P;
}

/// Calls Window(output offset, input offsets of the window's elements inside
/// the input, their count) for every pooling output.
template <typename Fn> void forPoolWindows(const PoolParams &P, Fn Window) {
  std::vector<size_t> Offsets;
  for (int64_t Nb = 0; Nb < P.N; ++Nb)
    for (int64_t Oy = 0; Oy < P.OH; ++Oy)
      for (int64_t Ox = 0; Ox < P.OW; ++Ox)
        for (int64_t Ch = 0; Ch < P.C; ++Ch) {
          Offsets.clear();
          for (int64_t Fy = 0; Fy < P.FH; ++Fy) {
            const int64_t Iy = Oy * P.StrideH - P.PadT + Fy;
            if (Iy < 0 || Iy >= P.H)
              continue;
            for (int64_t Fx = 0; Fx < P.FW; ++Fx) {
              const int64_t Ix = Ox * P.StrideW - P.PadL + Fx;
              if (Ix < 0 || Ix >= P.W)
                continue;
              Offsets.push_back(size_t(((Nb * P.H + Iy) * P.W + Ix) * P.C + Ch));
            }
          }
          Window(size_t(((Nb * P.OH + Oy) * P.OW + Ox) * P.C + Ch), Offsets);
        }
}

/// Reduction geometry: for each output element, the input offsets it
/// reduces (axes of input I), as a list per output element.
inline std::vector<std::vector<size_t>>
reductionGroups(const std::vector<uint32_t> &Dims, const std::vector<int32_t> &Axes) {
  std::vector<char> Reduced(Dims.size(), 0);
  for (int32_t A : Axes)
    Reduced[size_t(A < 0 ? A + int32_t(Dims.size()) : A)] = 1;
  // Output coords: the kept axes, row-major.
  size_t OutCount = 1, Numel = 1;
  for (size_t I = 0; I < Dims.size(); ++I) {
    Numel *= Dims[I];
    if (!Reduced[I])
      OutCount *= Dims[I];
  }
  std::vector<std::vector<size_t>> Groups(OutCount);
  std::vector<uint32_t> Co(Dims.size(), 0);
  for (size_t K = 0; K < Numel; ++K) {
    size_t O = 0;
    for (size_t I = 0; I < Dims.size(); ++I)
      if (!Reduced[I])
        O = O * Dims[I] + Co[I];
    Groups[O].push_back(K);
    for (size_t A = Dims.size(); A-- > 0;) {
      if (++Co[A] < Dims[A])
        break;
      Co[A] = 0;
    }
  }
  return Groups;
}

} // namespace kiln::nnapi::host
