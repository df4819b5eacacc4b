// Filling an image input from a camera frame or bitmap of any size
// (kiln_session_set_image): the frame is turned upright (rotated clockwise
// by 0, 90, 180 or 270 degrees), optionally center-cropped to the input's
// aspect ratio (torchvision's CenterCrop rounding of the offsets; cropping
// before resizing approximates its Resize + CenterCrop), and resized to the
// input's size with bilinear interpolation and half-pixel centers
// (torchvision's Resize on tensors, antialias off, = PyTorch's interpolate,
// bilinear, align_corners=False), in one pass that reads each output
// pixel's four neighbours straight from the frame. Values are rounded to
// the nearest byte.
//
// Every format reads as R, G, B (numerics/PixelFormats.h) and is written in
// the input's format (gray8 as BT.601 luma). An nv21 input takes only nv21
// frames: its Y and VU planes are resized each on its own.
#pragma once

#include "Status.h"

#include "numerics/PixelFormats.h"

#include <cstddef>
#include <cstdint>

struct pthreadpool;

namespace kiln::rt {

struct FrameView {
  const uint8_t *Pixels = nullptr;
  int64_t Width = 0, Height = 0;
  /// Bytes from one row to the next (at least Width * pixel bytes).
  size_t RowStride = 0;
  numerics::PixelFormat Format = numerics::PixelFormat::Unknown;
};

struct FrameOptions {
  int Rotation = 0; // clockwise degrees: 0, 90, 180, 270
  bool CenterCrop = false;
};

/// Checks the frame and options (invalidArgument naming what is wrong).
Status checkFrame(const FrameView &F, const FrameOptions &O,
                  numerics::PixelFormat Dst);

/// Writes the image, DstHeight x DstWidth in format Dst, to Out
/// (frameRows(Dst, DstHeight) * DstWidth * pixelBytes(Dst) bytes). The
/// frame must have passed checkFrame. With Pool (a session's threads) the
/// rows of an interleaved frame are split over its threads.
void resizeFrame(const FrameView &F, const FrameOptions &O,
                 numerics::PixelFormat Dst, int64_t DstHeight,
                 int64_t DstWidth, uint8_t *Out, pthreadpool *Pool = nullptr);

} // namespace kiln::rt
