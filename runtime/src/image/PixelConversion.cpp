#include "image/PixelConversion.h"

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
  return C;
}

namespace {

/// Interleaved frames to 3 channels: image channel K reads byte Src[K] of
/// each pixel (the format's and the model's channel orders combined).
template <int Bytes>
void convertInterleaved(const PixelConversion &C, const uint8_t *In,
                        float *Out, const int Src[3]) {
  for (int64_t W = 0; W < C.Width; ++W, In += Bytes, Out += 3)
    for (int K = 0; K < 3; ++K)
      Out[K] = (float(In[Src[K]]) - C.Mean[K]) * C.Scale[K];
}

} // namespace

void convertPixelRow(const PixelConversion &C, const uint8_t *Frame,
                     float *Image, int64_t Row) {
  int64_t N = Row / C.Height, H = Row % C.Height;
  const uint8_t *F = Frame + N * C.FrameRows * C.Stride;
  float *Out = Image + Row * C.Width * C.Channels;
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
    float Rgb[3];
    if (C.Channels == 1)
      Rgb[0] = numerics::readLuma(F, C.Stride, H, W);
    else
      numerics::readRgb(F, C.Format, C.Height, C.Stride, H, W, Rgb);
    for (int64_t K = 0; K < C.Channels; ++K)
      Out[K] = (Rgb[C.Bgr ? 2 - K : K] - C.Mean[K]) * C.Scale[K];
  }
}

} // namespace kiln::rt
