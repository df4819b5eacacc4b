#include "image/PixelConversion.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::rt {

PixelConversion pixelConversionOf(const fb::Operator &Op,
                                  const TensorDesc &Frame,
                                  const TensorDesc &Image) {
  const auto &O = *Op.options_as_PixelsToTensorOptions();
  PixelConversion C;
  C.Format = numerics::PixelFormat(O.format());
  C.Height = Image.dim(1);
  C.Width = Image.dim(2);
  C.Channels = Image.dim(3);
  C.FrameRows = Frame.dim(1);
  C.Stride = Frame.dim(2) * Frame.dim(3);
  C.Bgr = O.channel_bgr();
  for (int64_t K = 0; K < C.Channels && K < 3; ++K) {
    C.Mean[K] = O.mean()->Get(O.mean()->size() == 1 ? 0 : uint32_t(K));
    C.Scale[K] = O.scale()->Get(O.scale()->size() == 1 ? 0 : uint32_t(K));
  }
  if (Image.DType == fb::DType::I8) {
    C.Int8 = true;
    C.QScale = Image.Scales[0];
    C.QZero = float(Image.ZeroPoints[0]);
  }
  return C;
}

namespace {

/// Interleaved frames to 3 float channels: image channel K reads byte
/// Src[K] of each pixel (the format's and the model's channel orders
/// combined).
template <int Bytes>
void convertInterleaved(const PixelConversion &C, const uint8_t *In,
                        float *Out, const int Src[3]) {
  for (int64_t W = 0; W < C.Width; ++W, In += Bytes, Out += 3)
    for (int K = 0; K < 3; ++K)
      Out[K] = (float(In[Src[K]]) - C.Mean[K]) * C.Scale[K];
}

/// What QUANTIZE computes for V (runtime's reference and XNNPACK agree).
inline int8_t quantize(const PixelConversion &C, float V) {
  float Q = std::nearbyint(V / C.QScale) + C.QZero;
  return int8_t(std::min(127.0f, std::max(-128.0f, Q)));
}

/// Image row Row as floats, into Out (the row's first value).
void convertFloatRow(const PixelConversion &C, const uint8_t *Frame,
                     float *Out, int64_t Row);

} // namespace

void convertPixelRow(const PixelConversion &C, const uint8_t *Frame,
                     void *Image, int64_t Row) {
  int64_t First = Row * C.Width * C.Channels;
  if (!C.Int8) {
    convertFloatRow(C, Frame, static_cast<float *>(Image) + First, Row);
    return;
  }
  // The row in float first, then quantized as the QUANTIZE it replaces
  // would.
  std::vector<float> Values(size_t(C.Width * C.Channels));
  convertFloatRow(C, Frame, Values.data(), Row);
  int8_t *Out = static_cast<int8_t *>(Image) + First;
  for (size_t I = 0; I < Values.size(); ++I)
    Out[I] = quantize(C, Values[I]);
}

namespace {

void convertFloatRow(const PixelConversion &C, const uint8_t *Frame,
                     float *Out, int64_t Row) {
  int64_t N = Row / C.Height, H = Row % C.Height;
  const uint8_t *F = Frame + N * C.FrameRows * C.Stride;
  using numerics::PixelFormat;
  bool RgbOrder = C.Format == PixelFormat::Rgb8 || C.Format == PixelFormat::Rgba8;
  bool Bgr = C.Format == PixelFormat::Bgr8 || C.Format == PixelFormat::Bgra8;
  if (C.Channels == 3 && (RgbOrder || Bgr)) {
    // Byte of R, G, B in the frame's pixel, then in the model's order.
    int Src[3];
    for (int K = 0; K < 3; ++K) {
      int Color = C.Bgr ? 2 - K : K; // 0 R, 1 G, 2 B
      Src[K] = Bgr ? 2 - Color : Color;
    }
    const uint8_t *In = F + H * C.Stride;
    if (numerics::pixelBytes(C.Format) == 4)
      convertInterleaved<4>(C, In, Out, Src);
    else
      convertInterleaved<3>(C, In, Out, Src);
    return;
  }
  for (int64_t W = 0; W < C.Width; ++W, Out += C.Channels) {
    float V[3];
    numerics::readModelPixel(F, C.Format, C.Height, C.Stride, H, W,
                             C.Channels, C.Bgr, V);
    for (int64_t K = 0; K < C.Channels; ++K)
      Out[K] = (V[K] - C.Mean[K]) * C.Scale[K];
  }
}

} // namespace

} // namespace kiln::rt
