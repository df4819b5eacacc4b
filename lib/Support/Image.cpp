// stb_image is only given data whose signature says JPEG or PNG, whose
// header dimensions are within the limits and (PNG) whose compressed data
// inflates to no more than those dimensions take, so a hostile file can
// neither make it allocate gigabytes nor reach its other decoders (GIF, PSD,
// HDR...).
#include "Support/Image.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/PngInflateBound.h"

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

const char *formatName(ImageFormat F) {
  return F == ImageFormat::Png ? "PNG" : "JPEG";
}

uint32_t bigEndian(llvm::StringRef B, size_t At, size_t Bytes) {
  uint32_t V = 0;
  for (size_t I = 0; I < Bytes; ++I)
    V = V << 8 | uint8_t(B[At + I]);
  return V;
}

/// The dimensions a PNG (IHDR) or JPEG (first SOFn frame header) declares,
/// read here so that limits are checked with a clear message before
/// stb_image allocates anything. False if the header is missing.
bool headerSize(llvm::StringRef B, ImageFormat F, int64_t &W, int64_t &H) {
  if (F == ImageFormat::Png) {
    if (B.size() < 24 || B.substr(12, 4) != "IHDR")
      return false;
    W = bigEndian(B, 16, 4);
    H = bigEndian(B, 20, 4);
    return true;
  }
  // JPEG: markers FF xx, each (but SOI/EOI/RSTn) followed by a length.
  size_t P = 2;
  while (P + 4 <= B.size()) {
    if (uint8_t(B[P]) != 0xFF)
      return false;
    uint8_t M = uint8_t(B[P + 1]);
    if (M == 0xFF) { // fill byte
      ++P;
      continue;
    }
    if (M == 0xD8 || M == 0x01 || (M >= 0xD0 && M <= 0xD7)) {
      P += 2;
      continue;
    }
    size_t Len = bigEndian(B, P + 2, 2);
    bool Sof = M >= 0xC0 && M <= 0xCF && M != 0xC4 && M != 0xC8 && M != 0xCC;
    if (Sof) {
      if (P + 9 > B.size())
        return false;
      H = bigEndian(B, P + 5, 2);
      W = bigEndian(B, P + 7, 2);
      return true;
    }
    if (M == 0xD9 || M == 0xDA || Len < 2)
      return false; // end of image, or scan data before any frame header
    P += 2 + Len;
  }
  return false;
}

/// Signature, size and header checks shared by decodeImage and readImageSize.
llvm::Expected<ImageSize> checkHeader(llvm::StringRef Bytes,
                                      llvm::StringRef Name,
                                      int64_t MaxPixels = MaxImagePixels) {
  if (Bytes.empty())
    return inputError("{0}: the image file is empty", Name);
  if (Bytes.size() > MaxImageFileBytes || Bytes.size() > size_t(INT_MAX))
    return inputError("{0}: the image file is {1} bytes, above the {2}-byte "
                      "limit",
                      Name, Bytes.size(), MaxImageFileBytes);
  ImageFormat F = sniffFormat(Bytes);
  if (F == ImageFormat::Unknown)
    return inputError("{0}: not a JPEG or PNG image (unknown signature); "
                      "calibration images must be JPEG or PNG",
                      Name);
  int64_t W = 0, H = 0;
  if (!headerSize(Bytes, F, W, H))
    return inputError("{0}: corrupt {1} image: no {2} header", Name,
                      formatName(F),
                      F == ImageFormat::Png ? "IHDR" : "frame (SOF)");
  if (W <= 0 || H <= 0 || W > MaxImageSide || H > MaxImageSide ||
      W * H > MaxPixels)
    return inputError("{0}: the {1} image is {2}x{3} (WxH); kiln reads images "
                      "of 1 to {4} pixels per side and at most {5} pixels",
                      Name, formatName(F), W, H, MaxImageSide, MaxPixels);
  int SW = 0, SH = 0, SC = 0;
  if (!stbi_info_from_memory(bytesOf(Bytes), int(Bytes.size()), &SW, &SH, &SC))
    return inputError("{0}: corrupt {1} image header", Name, formatName(F));
  return ImageSize{W, H};
}

/// checkHeader, and for a PNG the bound on what its data inflates to.
llvm::Expected<ImageSize> checkBeforeDecoding(llvm::StringRef Bytes,
                                              llvm::StringRef Name,
                                              int64_t MaxPixels) {
  auto Size = checkHeader(Bytes, Name, MaxPixels);
  if (Size && sniffFormat(Bytes) == ImageFormat::Png)
    if (llvm::Error E = checkPngInflatedSize(Bytes, Name))
      return E;
  return Size;
}
} // namespace

llvm::Expected<Image> decodeImage(llvm::StringRef Bytes, llvm::StringRef Name,
                                  int Channels, int64_t MaxPixels) {
  if (Channels != 1 && Channels != 3)
    return internalError("decodeImage: {0} channels requested (1 or 3)",
                         Channels);
  auto Size = checkBeforeDecoding(Bytes, Name, MaxPixels);
  if (!Size)
    return Size.takeError();
  int W = 0, H = 0, FileChannels = 0;
  std::unique_ptr<stbi_uc, void (*)(void *)> Pixels(
      stbi_load_from_memory(bytesOf(Bytes), int(Bytes.size()), &W, &H,
                            &FileChannels, Channels),
      stbi_image_free);
  // stb_image tries its decoders in turn, so its failure reason may come
  // from another format's: only say which format failed.
  const char *Format = formatName(sniffFormat(Bytes));
  if (!Pixels)
    return inputError("{0}: corrupt or truncated {1} image data", Name, Format);
  if (W != Size->Width || H != Size->Height)
    return inputError("{0}: corrupt {1} image (the header says {2}x{3}, the "
                      "decoder {4}x{5})",
                      Name, Format, Size->Width, Size->Height, W, H);
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
