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

void convertPixelRow(const PixelConversion &C, const uint8_t *Frame,
                     float *Image, int64_t Row) {
  int64_t N = Row / C.Height, H = Row % C.Height;
  const uint8_t *F = Frame + N * C.FrameRows * C.Stride;
  float *Out = Image + Row * C.Width * C.Channels;
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
