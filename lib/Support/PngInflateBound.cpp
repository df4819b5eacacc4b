#include "Support/PngInflateBound.h"

#include "Support/Error.h"

#include <zlib.h>

#include <memory>

namespace kiln {

namespace {

uint32_t readBE32(const char *P) {
  const auto *U = reinterpret_cast<const unsigned char *>(P);
  return uint32_t(U[0]) << 24 | uint32_t(U[1]) << 16 | uint32_t(U[2]) << 8 |
         uint32_t(U[3]);
}

unsigned channelsOf(uint8_t ColorType) {
  switch (ColorType) {
  case 0: // gray
  case 3: // palette
    return 1;
  case 2: // RGB
    return 3;
  case 4: // gray + alpha
    return 2;
  case 6: // RGBA
    return 4;
  }
  return 0;
}

uint64_t passBytes(uint64_t W, uint64_t H, uint64_t BitsPerPixel) {
  if (W == 0 || H == 0)
    return 0;
  return H * (1 + (W * BitsPerPixel + 7) / 8);
}

/// Inflates the concatenated IDAT data as it arrives, counting output.
class CountingInflater {
public:
  explicit CountingInflater(bool Raw) {
    Ok = inflateInit2(&Z, Raw ? -15 : 15) == Z_OK;
  }
  ~CountingInflater() {
    if (Ok)
      inflateEnd(&Z);
  }
  /// Feeds one chunk; stops counting at the stream's end or an error.
  void feed(llvm::StringRef In, uint64_t Limit) {
    if (!Ok || Done)
      return;
    Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In.data()));
    Z.avail_in = uInt(In.size());
    while (Z.avail_in > 0 && Total <= Limit) {
      Z.next_out = Scratch;
      Z.avail_out = sizeof Scratch;
      int R = inflate(&Z, Z_NO_FLUSH);
      Total += sizeof Scratch - Z.avail_out;
      if (R == Z_STREAM_END || (R != Z_OK && R != Z_BUF_ERROR)) {
        Done = true;
        return;
      }
      if (R == Z_BUF_ERROR && Z.avail_out != 0)
        return; // needs the next chunk
    }
  }
  uint64_t total() const { return Total; }

private:
  z_stream Z{};
  bool Ok = false, Done = false;
  uint64_t Total = 0;
  Bytef Scratch[1 << 16];
};

} // namespace

uint64_t pngInflatedBytes(uint32_t Width, uint32_t Height, uint8_t BitDepth,
                          uint8_t ColorType, bool Interlaced) {
  unsigned Channels = channelsOf(ColorType);
  if (Channels == 0 || (BitDepth != 1 && BitDepth != 2 && BitDepth != 4 &&
                        BitDepth != 8 && BitDepth != 16))
    return 0;
  uint64_t Bits = uint64_t(Channels) * BitDepth;
  if (!Interlaced)
    return passBytes(Width, Height, Bits);
  // Adam7: the passes' origins and steps, x then y.
  static const unsigned Pass[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8},
                                      {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2},
                                      {0, 1, 1, 2}};
  uint64_t Total = 0;
  for (const auto &P : Pass) {
    uint64_t W = Width > P[0] ? (Width - P[0] + P[2] - 1) / P[2] : 0;
    uint64_t H = Height > P[1] ? (Height - P[1] + P[3] - 1) / P[3] : 0;
    Total += passBytes(W, H, Bits);
  }
  return Total;
}

llvm::Error checkPngInflatedSize(llvm::StringRef Bytes, llvm::StringRef Name) {
  size_t At = 8; // after the signature
  uint64_t Expected = 0;
  bool SawHeader = false, Raw = false;
  std::unique_ptr<CountingInflater> Inflater;
  while (At < Bytes.size()) {
    // stb_image reads a chunk's length and type, then allocates the length,
    // before it finds the file's end (8 bytes left declaring a 1 GiB IDAT).
    if (Bytes.size() - At < 12)
      return inputError("{0}: truncated PNG image: the file ends {1} bytes "
                        "into a chunk header (a chunk needs 12)",
                        Name, Bytes.size() - At);
    uint32_t Length = readBE32(Bytes.data() + At);
    llvm::StringRef Type = Bytes.substr(At + 4, 4);
    // stb_image allocates a chunk's declared length before reading it (a
    // 47-byte file declaring a 1 GiB IDAT made it ask for 1 GiB).
    if (Length > Bytes.size() - At - 12)
      return inputError("{0}: corrupt or truncated PNG image data: chunk "
                        "'{1}' of {2} bytes runs past the end of the file",
                        Name, llvm::StringRef(Type).str(), Length);
    llvm::StringRef Data = Bytes.substr(At + 8, Length);
    At += 12 + size_t(Length);
    if (Type == "CgBI") { // Apple's variant: raw deflate, no zlib header
      Raw = true;
    } else if (Type == "IHDR" && Length >= 13 && !SawHeader) {
      SawHeader = true;
      Expected = pngInflatedBytes(readBE32(Data.data()), readBE32(Data.data() + 4),
                                  uint8_t(Data[8]), uint8_t(Data[9]),
                                  Data[12] != 0);
    } else if (Type == "IDAT" && SawHeader && Expected > 0) {
      if (!Inflater)
        Inflater = std::make_unique<CountingInflater>(Raw);
      Inflater->feed(Data, Expected);
      if (Inflater->total() > Expected)
        return inputError("{0}: corrupt PNG image: its image data inflates to "
                          "more than the {1} bytes its header's size and "
                          "format take (a decompression bomb?)",
                          Name, Expected);
    } else if (Type == "IEND") {
      break;
    }
  }
  return llvm::Error::success();
}

} // namespace kiln
