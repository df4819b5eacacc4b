// Decoding images for calibration: JPEG and PNG files, read with stb_image
// into 8-bit pixels. These files come from users, so the format is checked by
// its signature, the dimensions are read from the header and bounded before
// anything is decoded, and every failure names the file.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace kiln {

/// 8-bit pixels, row-major, interleaved channels (HWC): RGB for 3 channels,
/// gray for 1.
struct Image {
  int64_t Width = 0;
  int64_t Height = 0;
  int Channels = 3;
  std::vector<uint8_t> Pixels;

  uint8_t at(int64_t Y, int64_t X, int C) const {
    return Pixels[size_t((Y * Width + X) * Channels + C)];
  }
};

/// Largest image accepted, per side and in total pixels.
constexpr int64_t MaxImageSide = 16384;
constexpr int64_t MaxImagePixels = int64_t(1) << 26;
/// Largest image file accepted.
constexpr uint64_t MaxImageFileBytes = uint64_t(256) << 20;

/// True for the extensions calibration treats as images (.jpg, .jpeg, .png,
/// any case).
bool isImagePath(llvm::StringRef Path);

/// Decodes a JPEG or PNG held in Bytes into Channels (1 or 3) channels: color
/// images are converted to gray for 1, gray ones replicated for 3, alpha is
/// dropped. Name is used in messages.
/// MaxPixels lowers the pixel limit (the fuzz target keeps each input fast).
llvm::Expected<Image> decodeImage(llvm::StringRef Bytes, llvm::StringRef Name,
                                  int Channels = 3,
                                  int64_t MaxPixels = MaxImagePixels);
llvm::Expected<Image> readImageFile(llvm::StringRef Path, int Channels = 3);

struct ImageSize {
  int64_t Width = 0;
  int64_t Height = 0;
};
/// The dimensions in the file's header, checked like decodeImage does, without
/// decoding the pixels.
llvm::Expected<ImageSize> readImageSize(llvm::StringRef Path);

} // namespace kiln
