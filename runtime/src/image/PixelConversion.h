// PIXELS_TO_TENSOR's arithmetic, for every executor that runs it (the CPU
// kernel, NNAPI's host step): a u8 frame to the normalized f32 NHWC image
// (or, in an int8 file, straight to its quantized i8 values), one image row
// at a time, each pixel read through numerics/PixelFormats.h
// as the compiler's interpreter reads it.
#pragma once

#include "loader/TensorDesc.h"

#include "numerics/PixelFormats.h"

#include <cstdint>

namespace kiln::rt {

struct PixelConversion {
  numerics::PixelFormat Format = numerics::PixelFormat::Unknown;
  int64_t Height = 0, Width = 0, Channels = 0, FrameRows = 0, Stride = 0;
  bool Bgr = false;
  float Mean[3] = {0, 0, 0}, Scale[3] = {1, 1, 1};
  /// An int8 image (per-tensor QuantParams): each value is quantized as
  /// QUANTIZE does, clamp(round_half_even(v / QScale) + QZero, -128, 127).
  bool Int8 = false;
  float QScale = 1, QZero = 0;

  /// Image rows over the whole batch.
  int64_t rows(int64_t Batch) const { return Batch * Height; }
};

/// The conversion a validated PIXELS_TO_TENSOR operator describes, from
/// Frame (U8 [N, rows, W, B]) to Image (F32 [N, H, W, C]).
PixelConversion pixelConversionOf(const fb::Operator &Op,
                                  const TensorDesc &Frame,
                                  const TensorDesc &Image);

/// Writes image row Row (n * Height + h) of Image (float, or int8_t when
/// C.Int8) from Frame.
void convertPixelRow(const PixelConversion &C, const uint8_t *Frame,
                     void *Image, int64_t Row);

} // namespace kiln::rt
