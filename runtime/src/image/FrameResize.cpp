#include "image/FrameResize.h"

#include "PoolHandOff.h"

#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::rt {

using numerics::PixelFormat;

namespace {

/// Frames larger than this per side are refused (16K, as image files).
constexpr int64_t MaxFrameSide = 16384;

/// One axis of the resize: for output index I, the two source indices and
/// the weight of the second, in the cropped, upright frame.
struct Taps {
  int64_t I0, I1;
  float Weight;
};

Taps tapsFor(int64_t I, int64_t Out, int64_t In, int64_t Offset) {
  float Src = (float(I) + 0.5f) * (float(In) / float(Out)) - 0.5f;
  if (Src < 0)
    Src = 0;
  int64_t I0 = std::min(int64_t(Src), In - 1);
  int64_t I1 = std::min(I0 + 1, In - 1);
  return {Offset + I0, Offset + I1, Src - float(I0)};
}

/// The region of the upright frame (Rows x Cols) that is resized: all of
/// it, or the center crop with the output's aspect ratio.
struct Region {
  int64_t Top = 0, Left = 0, Rows = 0, Cols = 0;
};

Region regionOf(int64_t Rows, int64_t Cols, bool Crop, int64_t OutH,
                int64_t OutW) {
  Region R{0, 0, Rows, Cols};
  if (!Crop)
    return R;
  // The largest region of the output's aspect ratio, centered, its offsets
  // rounded half to even as torchvision's CenterCrop rounds them (Python's
  // round).
  if (Cols * OutH > Rows * OutW)
    R.Cols = std::max<int64_t>(1, int64_t(std::nearbyint(double(Rows) * OutW / OutH)));
  else
    R.Rows = std::max<int64_t>(1, int64_t(std::nearbyint(double(Cols) * OutH / OutW)));
  R.Cols = std::min(R.Cols, Cols);
  R.Rows = std::min(R.Rows, Rows);
  R.Top = int64_t(std::nearbyint((Rows - R.Rows) / 2.0));
  R.Left = int64_t(std::nearbyint((Cols - R.Cols) / 2.0));
  return R;
}

/// Maps (Row, Col) of the upright image to the frame's (Y, X); the frame is
/// H x W and is rotated clockwise by Rotation to be upright.
inline void toFrame(int Rotation, int64_t H, int64_t W, int64_t Row,
                    int64_t Col, int64_t &Y, int64_t &X) {
  switch (Rotation) {
  case 90: Y = H - 1 - Col, X = Row; return;
  case 180: Y = H - 1 - Row, X = W - 1 - Col; return;
  case 270: Y = Col, X = W - 1 - Row; return;
  default: Y = Row, X = Col; return;
  }
}

inline uint8_t toByte(float V) {
  V = numerics::clampPixel(V);
  return uint8_t(V + 0.5f);
}

/// Writes V (R, G, B) as one pixel of Dst at P.
inline void writePixel(PixelFormat Dst, bool SrcColor, const float V[3],
                       uint8_t *P) {
  switch (Dst) {
  case PixelFormat::Gray8:
    P[0] = toByte(SrcColor ? 0.299f * V[0] + 0.587f * V[1] + 0.114f * V[2]
                           : V[0]);
    return;
  case PixelFormat::Bgr8:
    P[0] = toByte(V[2]), P[1] = toByte(V[1]), P[2] = toByte(V[0]);
    return;
  case PixelFormat::Bgra8:
    P[0] = toByte(V[2]), P[1] = toByte(V[1]), P[2] = toByte(V[0]), P[3] = 255;
    return;
  case PixelFormat::Rgba8:
    P[0] = toByte(V[0]), P[1] = toByte(V[1]), P[2] = toByte(V[2]), P[3] = 255;
    return;
  default:
    P[0] = toByte(V[0]), P[1] = toByte(V[1]), P[2] = toByte(V[2]);
    return;
  }
}

/// One axis of the upright image, precomputed: for each output index, the
/// byte offsets in the frame of its two taps and the second's weight. The
/// upright image's rows and columns are the frame's rows or columns, in
/// order or reversed, as the rotation says; a sample's address is its row
/// offset plus its column offset.
struct AxisTaps {
  std::vector<size_t> Off0, Off1;
  std::vector<float> Weight;
};

AxisTaps axisTaps(int64_t Out, int64_t In, int64_t Start, size_t Step,
                  bool Reversed, int64_t FrameSize) {
  AxisTaps A;
  A.Off0.resize(size_t(Out));
  A.Off1.resize(size_t(Out));
  A.Weight.resize(size_t(Out));
  auto offset = [&](int64_t I) {
    return size_t(Reversed ? FrameSize - 1 - I : I) * Step;
  };
  for (int64_t I = 0; I < Out; ++I) {
    Taps T = tapsFor(I, Out, In, Start);
    A.Off0[size_t(I)] = offset(T.I0);
    A.Off1[size_t(I)] = offset(T.I1);
    A.Weight[size_t(I)] = T.Weight;
  }
  return A;
}

/// An interleaved frame (Bytes a pixel; gray8 when 1; B, G, R order when
/// Bgr) to any interleaved format: four taps a pixel at precomputed
/// addresses, rows over Pool's threads.
template <int Bytes, bool Bgr> struct InterleavedResize {
  const FrameView *F;
  PixelFormat Dst;
  int64_t OutW;
  AxisTaps Y, X;
  uint8_t *Out;

  void row(int64_t I) const {
    int OutBytes = numerics::pixelBytes(Dst);
    const uint8_t *R0 = F->Pixels + Y.Off0[size_t(I)];
    const uint8_t *R1 = F->Pixels + Y.Off1[size_t(I)];
    float WY = Y.Weight[size_t(I)];
    uint8_t *P = Out + I * OutW * OutBytes;
    for (int64_t J = 0; J < OutW; ++J, P += OutBytes) {
      size_t X0 = X.Off0[size_t(J)], X1 = X.Off1[size_t(J)];
      float WX = X.Weight[size_t(J)];
      float V[3];
      for (int K = 0; K < (Bytes == 1 ? 1 : 3); ++K) {
        int C = Bgr ? 2 - K : K;
        float A = R0[X0 + C], B = R0[X1 + C], Cc = R1[X0 + C], D = R1[X1 + C];
        float Top = A + (B - A) * WX, Bottom = Cc + (D - Cc) * WX;
        V[K] = Top + (Bottom - Top) * WY;
      }
      if (Bytes == 1)
        V[1] = V[2] = V[0];
      writePixel(Dst, Bytes != 1, V, P);
    }
  }

  static void task(void *Context, size_t I) {
    ref::takeOver(Context);
    static_cast<const InterleavedResize *>(Context)->row(int64_t(I));
    ref::handOff(Context);
  }
};

/// Output pixels below which threads cost more than they save.
constexpr int64_t MinThreadedPixels = 16384;

template <int Bytes, bool Bgr>
void resizeInterleaved(const FrameView &F, const FrameOptions &O,
                       PixelFormat Dst, int64_t OutH, int64_t OutW,
                       uint8_t *Out, pthreadpool *Pool) {
  bool Turned = O.Rotation == 90 || O.Rotation == 270;
  int64_t Rows = Turned ? F.Width : F.Height, Cols = Turned ? F.Height : F.Width;
  Region R = regionOf(Rows, Cols, O.CenterCrop, OutH, OutW);
  size_t Stride = F.RowStride, Pixel = size_t(Bytes);
  // Upright rows walk the frame's rows (0, 180) or columns (90, 270);
  // upright columns the other one.
  AxisTaps Y = Turned ? axisTaps(OutH, R.Rows, R.Top, Pixel, O.Rotation == 270, F.Width)
                      : axisTaps(OutH, R.Rows, R.Top, Stride, O.Rotation == 180, F.Height);
  AxisTaps X = Turned ? axisTaps(OutW, R.Cols, R.Left, Stride, O.Rotation == 90, F.Height)
                      : axisTaps(OutW, R.Cols, R.Left, Pixel, O.Rotation == 180, F.Width);
  InterleavedResize<Bytes, Bgr> R2{&F, Dst, OutW, std::move(Y), std::move(X),
                                    Out};
  if (!Pool || pthreadpool_get_threads_count(Pool) <= 1 ||
      OutH * OutW < MinThreadedPixels) {
    for (int64_t I = 0; I < OutH; ++I)
      R2.row(I);
    return;
  }
  ref::handOff(&R2);
  pthreadpool_parallelize_1d(Pool, &InterleavedResize<Bytes, Bgr>::task, &R2,
                             size_t(OutH), /*flags=*/0);
  ref::takeOver(&R2);
}

/// Any frame (nv21 included, whose pixels are not interleaved), each tap
/// read through numerics::readRgb.
void resizeToPixels(const FrameView &F, const FrameOptions &O, PixelFormat Dst,
                    int64_t OutH, int64_t OutW, uint8_t *Out) {
  bool Turned = O.Rotation == 90 || O.Rotation == 270;
  int64_t Rows = Turned ? F.Width : F.Height, Cols = Turned ? F.Height : F.Width;
  Region R = regionOf(Rows, Cols, O.CenterCrop, OutH, OutW);
  int Bytes = numerics::pixelBytes(Dst);
  auto sample = [&](int64_t Row, int64_t Col, float Rgb[3]) {
    int64_t Y, X;
    toFrame(O.Rotation, F.Height, F.Width, Row, Col, Y, X);
    numerics::readRgb(F.Pixels, F.Format, F.Height, int64_t(F.RowStride), Y, X,
                      Rgb);
  };
  for (int64_t I = 0; I < OutH; ++I) {
    Taps TY = tapsFor(I, OutH, R.Rows, R.Top);
    for (int64_t J = 0; J < OutW; ++J) {
      Taps TX = tapsFor(J, OutW, R.Cols, R.Left);
      float A[3], B[3], C[3], D[3], V[3];
      sample(TY.I0, TX.I0, A);
      sample(TY.I0, TX.I1, B);
      sample(TY.I1, TX.I0, C);
      sample(TY.I1, TX.I1, D);
      for (int K = 0; K < 3; ++K) {
        float Top = A[K] + (B[K] - A[K]) * TX.Weight;
        float Bottom = C[K] + (D[K] - C[K]) * TX.Weight;
        V[K] = Top + (Bottom - Top) * TY.Weight;
      }
      writePixel(Dst, numerics::hasColor(F.Format), V,
                 Out + (I * OutW + J) * Bytes);
    }
  }
}

/// One plane of Channels interleaved bytes, Height x Width, from Plane
/// (Stride bytes a row), resized on its own.
void resizePlane(const uint8_t *Plane, int64_t Height, int64_t Width,
                 size_t Stride, int Channels, const FrameOptions &O,
                 int64_t OutH, int64_t OutW, uint8_t *Out) {
  bool Turned = O.Rotation == 90 || O.Rotation == 270;
  int64_t Rows = Turned ? Width : Height, Cols = Turned ? Height : Width;
  Region R = regionOf(Rows, Cols, O.CenterCrop, OutH, OutW);
  auto at = [&](int64_t Row, int64_t Col, int K) {
    int64_t Y, X;
    toFrame(O.Rotation, Height, Width, Row, Col, Y, X);
    return float(Plane[size_t(Y) * Stride + size_t(X * Channels + K)]);
  };
  for (int64_t I = 0; I < OutH; ++I) {
    Taps TY = tapsFor(I, OutH, R.Rows, R.Top);
    for (int64_t J = 0; J < OutW; ++J) {
      Taps TX = tapsFor(J, OutW, R.Cols, R.Left);
      for (int K = 0; K < Channels; ++K) {
        float A = at(TY.I0, TX.I0, K), B = at(TY.I0, TX.I1, K);
        float C = at(TY.I1, TX.I0, K), D = at(TY.I1, TX.I1, K);
        float Top = A + (B - A) * TX.Weight, Bottom = C + (D - C) * TX.Weight;
        Out[(I * OutW + J) * Channels + K] = toByte(Top + (Bottom - Top) * TY.Weight);
      }
    }
  }
}

} // namespace

Status checkFrame(const FrameView &F, const FrameOptions &O, PixelFormat Dst) {
  int Bytes = numerics::pixelBytes(F.Format);
  if (!F.Pixels)
    return invalidArgument("null pixels");
  if (Bytes == 0)
    return invalidArgument("unknown pixel format ", int(F.Format));
  if (F.Width < 1 || F.Height < 1 || F.Width > MaxFrameSide ||
      F.Height > MaxFrameSide)
    return invalidArgument("a frame of ", F.Width, "x", F.Height,
                           " (each side must be 1 to ", MaxFrameSide, ")");
  if (F.RowStride < size_t(F.Width) * size_t(Bytes))
    return invalidArgument("row stride ", F.RowStride, " is less than ",
                           F.Width, " pixels of ", Bytes, " byte(s)");
  if (O.Rotation != 0 && O.Rotation != 90 && O.Rotation != 180 &&
      O.Rotation != 270)
    return invalidArgument("rotation must be 0, 90, 180 or 270, got ",
                           O.Rotation);
  if (F.Format == PixelFormat::Nv21 && (F.Width % 2 || F.Height % 2))
    return invalidArgument("an nv21 frame needs an even width and height, got ",
                           F.Width, "x", F.Height);
  if (Dst == PixelFormat::Nv21 && F.Format != PixelFormat::Nv21)
    return invalidArgument("the input takes nv21 images; a ",
                           numerics::pixelFormatName(F.Format),
                           " frame cannot fill it (nv21 inputs take nv21 "
                           "frames only)");
  if (F.RowStride > MaxFrameSide * 4 * 16)
    return invalidArgument("row stride ", F.RowStride, " is more than ",
                           MaxFrameSide * 4 * 16, " bytes");
  return Status::ok();
}

void resizeFrame(const FrameView &F, const FrameOptions &O, PixelFormat Dst,
                 int64_t OutH, int64_t OutW, uint8_t *Out, pthreadpool *Pool) {
  switch (F.Format) {
  case PixelFormat::Rgb8:
    return resizeInterleaved<3, false>(F, O, Dst, OutH, OutW, Out, Pool);
  case PixelFormat::Bgr8:
    return resizeInterleaved<3, true>(F, O, Dst, OutH, OutW, Out, Pool);
  case PixelFormat::Rgba8:
    return resizeInterleaved<4, false>(F, O, Dst, OutH, OutW, Out, Pool);
  case PixelFormat::Bgra8:
    return resizeInterleaved<4, true>(F, O, Dst, OutH, OutW, Out, Pool);
  case PixelFormat::Gray8:
    return resizeInterleaved<1, false>(F, O, Dst, OutH, OutW, Out, Pool);
  default: break;
  }
  if (Dst != PixelFormat::Nv21) {
    resizeToPixels(F, O, Dst, OutH, OutW, Out);
    return;
  }
  resizePlane(F.Pixels, F.Height, F.Width, F.RowStride, 1, O, OutH, OutW, Out);
  resizePlane(F.Pixels + F.RowStride * size_t(F.Height), F.Height / 2,
              F.Width / 2, F.RowStride, 2, O, OutH / 2, OutW / 2,
              Out + OutH * OutW);
}

} // namespace kiln::rt
