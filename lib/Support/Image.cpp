// stb_image is only given data whose signature says JPEG or PNG and whose
// header dimensions are within the limits, so a hostile file can neither make
// it allocate gigabytes nor reach its other decoders (GIF, PSD, HDR...).
#include "Support/Image.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <stb_image.h>

#include <climits>
#include <cstring>
#include <memory>

namespace kiln {

bool isImagePath(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext.equals_insensitive(".jpg") || Ext.equals_insensitive(".jpeg") ||
         Ext.equals_insensitive(".png");
}

namespace {
enum class ImageFormat { Unknown, Jpeg, Png };

ImageFormat sniffFormat(llvm::StringRef Bytes) {
  if (Bytes.startswith("\x89PNG\r\n\x1a\n"))
    return ImageFormat::Png;
  if (Bytes.startswith("\xFF\xD8\xFF"))
    return ImageFormat::Jpeg;
  return ImageFormat::Unknown;
}

const stbi_uc *bytesOf(llvm::StringRef Bytes) {
  return reinterpret_cast<const stbi_uc *>(Bytes.data());
}

/// Signature, size and header checks shared by decodeImage and readImageSize.
llvm::Expected<ImageSize> checkHeader(llvm::StringRef Bytes,
                                      llvm::StringRef Name) {
  if (Bytes.empty())
    return inputError("{0}: the image file is empty", Name);
  if (Bytes.size() > MaxImageFileBytes || Bytes.size() > size_t(INT_MAX))
    return inputError("{0}: the image file is {1} bytes, above the {2}-byte "
                      "limit",
                      Name, Bytes.size(), MaxImageFileBytes);
  if (sniffFormat(Bytes) == ImageFormat::Unknown)
    return inputError("{0}: not a JPEG or PNG image (unknown signature); "
                      "calibration images must be JPEG or PNG",
                      Name);
  int W = 0, H = 0, C = 0;
  if (!stbi_info_from_memory(bytesOf(Bytes), int(Bytes.size()), &W, &H, &C))
    return inputError("{0}: corrupt image header ({1})", Name,
                      stbi_failure_reason());
  if (W <= 0 || H <= 0 || W > MaxImageSide || H > MaxImageSide ||
      int64_t(W) * H > MaxImagePixels)
    return inputError("{0}: image is {1}x{2}; the limit is {3} pixels per "
                      "side and {4} pixels in all",
                      Name, W, H, MaxImageSide, MaxImagePixels);
  return ImageSize{W, H};
}
} // namespace

llvm::Expected<Image> decodeImage(llvm::StringRef Bytes, llvm::StringRef Name,
                                  int Channels) {
  if (Channels != 1 && Channels != 3)
    return internalError("decodeImage: {0} channels requested (1 or 3)",
                         Channels);
  auto Size = checkHeader(Bytes, Name);
  if (!Size)
    return Size.takeError();
  int W = 0, H = 0, FileChannels = 0;
  std::unique_ptr<stbi_uc, void (*)(void *)> Pixels(
      stbi_load_from_memory(bytesOf(Bytes), int(Bytes.size()), &W, &H,
                            &FileChannels, Channels),
      stbi_image_free);
  if (!Pixels)
    return inputError("{0}: corrupt image ({1})", Name, stbi_failure_reason());
  if (W != Size->Width || H != Size->Height)
    return inputError("{0}: corrupt image (header says {1}x{2}, data {3}x{4})",
                      Name, Size->Width, Size->Height, W, H);
  Image Img;
  Img.Width = W;
  Img.Height = H;
  Img.Channels = Channels;
  size_t Bytes8 = size_t(W) * size_t(H) * size_t(Channels);
  Img.Pixels.assign(Pixels.get(), Pixels.get() + Bytes8);
  return Img;
}

llvm::Expected<Image> readImageFile(llvm::StringRef Path, int Channels) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return decodeImage((*Buf)->getBuffer(), Path, Channels);
}

llvm::Expected<ImageSize> readImageSize(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  return checkHeader((*Buf)->getBuffer(), Path);
}

} // namespace kiln
