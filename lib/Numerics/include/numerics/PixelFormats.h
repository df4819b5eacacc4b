// Camera and bitmap pixel formats, and how one pixel of each reads as RGB:
// the compiler's pixels_to_tensor (the IR op and the interpreter), the
// runtime's PIXELS_TO_TENSOR kernel and its frame resizer all read pixels
// through this header, so they agree bit for bit.
//
// A frame is 8-bit, row-major, interleaved: rgb8, bgr8 (3 bytes a pixel),
// rgba8, bgra8 (4; alpha is ignored), gray8 (1), and nv21: Android's
// YUV 4:2:0, a full-resolution Y plane of H rows followed by H/2 rows of
// interleaved V, U samples, one pair for each 2x2 block of pixels (H and W
// even). nv21 is read as full-range BT.601 (JFIF; what CameraX delivers):
//   R = Y + 1.402 (V - 128)
//   G = Y - 0.344136 (U - 128) - 0.714136 (V - 128)
//   B = Y + 1.772 (U - 128)
// each clamped to [0, 255], not rounded; its inverse is
//   Y = 0.299 R + 0.587 G + 0.114 B
//   U = -0.168736 R - 0.331264 G + 0.5 B + 128
//   V = 0.5 R - 0.418688 G - 0.081312 B + 128.
// Header only and dependency free, because the runtime depends on nothing
// of the compiler's.
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln::numerics {

/// The values are the schema's PixelFormat (schema/kiln.fbs).
enum class PixelFormat : uint8_t {
  Unknown = 0,
  Rgb8 = 1,
  Bgr8 = 2,
  Rgba8 = 3,
  Bgra8 = 4,
  Gray8 = 5,
  Nv21 = 6,
};

inline const char *pixelFormatName(PixelFormat F) {
  switch (F) {
  case PixelFormat::Rgb8: return "rgb8";
  case PixelFormat::Bgr8: return "bgr8";
  case PixelFormat::Rgba8: return "rgba8";
  case PixelFormat::Bgra8: return "bgra8";
  case PixelFormat::Gray8: return "gray8";
  case PixelFormat::Nv21: return "nv21";
  case PixelFormat::Unknown: break;
  }
  return "unknown";
}

/// Unknown for a name that is none of the formats above.
inline PixelFormat parsePixelFormat(std::string_view Name) {
  for (PixelFormat F : {PixelFormat::Rgb8, PixelFormat::Bgr8,
                        PixelFormat::Rgba8, PixelFormat::Bgra8,
                        PixelFormat::Gray8, PixelFormat::Nv21})
    if (Name == pixelFormatName(F))
      return F;
  return PixelFormat::Unknown;
}

/// Bytes per pixel in the frame's innermost dim (nv21: 1, its planes are
/// stacked as rows); 0 for Unknown.
inline int pixelBytes(PixelFormat F) {
  switch (F) {
  case PixelFormat::Rgb8:
  case PixelFormat::Bgr8: return 3;
  case PixelFormat::Rgba8:
  case PixelFormat::Bgra8: return 4;
  case PixelFormat::Gray8:
  case PixelFormat::Nv21: return 1;
  case PixelFormat::Unknown: break;
  }
  return 0;
}

/// True for the formats with color (every one but gray8).
inline bool hasColor(PixelFormat F) {
  return F != PixelFormat::Gray8 && F != PixelFormat::Unknown;
}

/// Rows of the frame's buffer for an image of Height rows (nv21 adds the
/// chroma rows).
inline int64_t frameRows(PixelFormat F, int64_t Height) {
  return F == PixelFormat::Nv21 ? Height + Height / 2 : Height;
}

inline float clampPixel(float V) { return V < 0 ? 0 : (V > 255 ? 255 : V); }

/// BT.601 full range, as documented above.
inline void yuvToRgb(float Y, float U, float V, float Rgb[3]) {
  float Cb = U - 128.0f, Cr = V - 128.0f;
  Rgb[0] = clampPixel(Y + 1.402f * Cr);
  Rgb[1] = clampPixel(Y - 0.344136f * Cb - 0.714136f * Cr);
  Rgb[2] = clampPixel(Y + 1.772f * Cb);
}

/// Pixel (Y, X) of a frame of Height rows as R, G, B (gray: three times the
/// same value). Stride is the bytes from one row to the next (both planes of
/// nv21 use it).
inline void readRgb(const uint8_t *Frame, PixelFormat F, int64_t Height,
                    int64_t Stride, int64_t Y, int64_t X, float Rgb[3]) {
  const uint8_t *Row = Frame + Y * Stride;
  switch (F) {
  case PixelFormat::Rgb8:
  case PixelFormat::Rgba8: {
    const uint8_t *P = Row + X * pixelBytes(F);
    Rgb[0] = P[0], Rgb[1] = P[1], Rgb[2] = P[2];
    return;
  }
  case PixelFormat::Bgr8:
  case PixelFormat::Bgra8: {
    const uint8_t *P = Row + X * pixelBytes(F);
    Rgb[0] = P[2], Rgb[1] = P[1], Rgb[2] = P[0];
    return;
  }
  case PixelFormat::Gray8:
    Rgb[0] = Rgb[1] = Rgb[2] = Row[X];
    return;
  case PixelFormat::Nv21: {
    const uint8_t *VU = Frame + (Height + Y / 2) * Stride + (X & ~int64_t(1));
    yuvToRgb(Row[X], VU[1], VU[0], Rgb);
    return;
  }
  case PixelFormat::Unknown: break;
  }
  Rgb[0] = Rgb[1] = Rgb[2] = 0;
}

/// The one value a single-channel model reads at (Y, X): the gray byte, or
/// nv21's Y sample (the luma every color frame carries).
/// Only gray8 and nv21 frames feed single-channel models.
inline float readLuma(const uint8_t *Frame, int64_t Stride, int64_t Y,
                      int64_t X) {
  return Frame[Y * Stride + X];
}

/// Pixel (Y, X) in the model's channels: Channels 1 reads the luma (gray8's
/// byte, nv21's Y) whatever the order; 3 reads R, G, B, reversed for a
/// model trained on B, G, R (Bgr). What pixels_to_tensor normalizes.
inline void readModelPixel(const uint8_t *Frame, PixelFormat F, int64_t Height,
                           int64_t Stride, int64_t Y, int64_t X,
                           int64_t Channels, bool Bgr, float Out[3]) {
  if (Channels == 1) {
    Out[0] = readLuma(Frame, Stride, Y, X);
    return;
  }
  float Rgb[3];
  readRgb(Frame, F, Height, Stride, Y, X, Rgb);
  for (int C = 0; C < 3; ++C)
    Out[C] = Rgb[Bgr ? 2 - C : C];
}

} // namespace kiln::numerics
