// Turning a decoded image into a model input, the way training pipelines do
// (torchvision's Resize + CenterCrop + ToTensor + Normalize):
//   1. resize: the shorter side to N (aspect kept), or exactly to HxW,
//      bilinear with half-pixel centers (no antialiasing);
//   2. center-crop to HxW;
//   3. v = (pixel * scale - mean[c]) / std[c], with c in output channel order
//      (after the RGB/BGR choice);
//   4. lay out as CHW or HWC floats.
// The settings come from command-line flags or a small JSON config:
//   {"resize": 256 | [h, w], "crop": 224 | [h, w], "scale": 0.00392157,
//    "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
//    "channels": "rgb" | "bgr", "layout": "nchw" | "nhwc"}
#pragma once

#include "Support/Image.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct ImagePreprocess {
  /// Resize: the shorter side to ResizeShorter, or exactly to ResizeHeight x
  /// ResizeWidth; all zero means no resize.
  int64_t ResizeShorter = 0;
  int64_t ResizeHeight = 0, ResizeWidth = 0;
  /// Center crop; zero means none.
  int64_t CropHeight = 0, CropWidth = 0;
  double Scale = 1.0 / 255.0;
  /// Per output channel (one value applies to every channel).
  std::vector<double> Mean = {0.0};
  std::vector<double> Std = {1.0};
  bool Bgr = false;
  bool ChannelsLast = false; // NHWC instead of NCHW

  bool resizes() const { return ResizeShorter > 0 || ResizeHeight > 0; }
  bool crops() const { return CropHeight > 0; }
};

/// Parses "N" (a square, or a shorter side) or "HxW" into Height/Width;
/// IsPair says which was given. What names the flag in messages.
llvm::Error parseImageSize(llvm::StringRef Text, llvm::StringRef What,
                           int64_t &Height, int64_t &Width, bool &IsPair);
/// Parses "a,b,c" (or one value) into per-channel values.
llvm::Error parseChannelValues(llvm::StringRef Text, llvm::StringRef What,
                               std::vector<double> &Values);

/// Reads a JSON config (at most 64 KiB) over the defaults in Into. Unknown
/// keys and wrong kinds are errors naming the file.
llvm::Error readPreprocessConfig(llvm::StringRef Path, ImagePreprocess &Into);

/// Checks the settings for Channels output channels (usage errors).
llvm::Error validatePreprocess(const ImagePreprocess &P, int Channels);

/// The height and width preprocessing gives an image of InH x InW.
void preprocessedSize(const ImagePreprocess &P, int64_t InH, int64_t InW,
                      int64_t &OutH, int64_t &OutW);

/// Bilinear resize with half-pixel centers (PyTorch interpolate, bilinear,
/// align_corners=False, antialias=False). Returns float pixels, HWC.
std::vector<float> resizeBilinear(const Image &Img, int64_t OutH, int64_t OutW);

/// Steps 1-4 above: OutH x OutW x channels floats in CHW (or HWC) order.
/// Fails (naming Name) when the crop is larger than the resized image.
llvm::Expected<std::vector<float>> preprocessImage(const Image &Img,
                                                   const ImagePreprocess &P,
                                                   llvm::StringRef Name,
                                                   int64_t &OutH, int64_t &OutW);

} // namespace kiln
