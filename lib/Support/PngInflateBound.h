// stb_image inflates a PNG's image data into a buffer it doubles for as long
// as the stream keeps producing bytes, up to 4 GiB, whatever the header's
// size, and allocates a chunk's declared length before reading it: a
// 47-byte 10x6 PNG declaring a 1 GiB IDAT chunk made it ask for 1 GiB
// (found by kiln-image-fuzzer). Before stb sees a PNG, every chunk must fit
// in the file, and its IDAT stream is inflated
// once with zlib into a small scratch buffer, counting bytes, and refused as
// soon as it exceeds what the header's size, bit depth, color type and
// interlacing take.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace kiln {

/// The exact number of bytes the PNG's image data inflates to: the filter
/// byte and packed pixels of every row (of every Adam7 pass when
/// interlaced). 0 for an unknown color type or bit depth.
uint64_t pngInflatedBytes(uint32_t Width, uint32_t Height, uint8_t BitDepth,
                          uint8_t ColorType, bool Interlaced);

/// Checks that Bytes (a PNG, signature already seen) inflates to at most
/// what its IHDR says, and that no chunk runs past the end of the file
/// (stb_image allocates a chunk's declared length before reading it). A corrupt zlib stream
/// is left to stb_image to report. Name is used in messages.
llvm::Error checkPngInflatedSize(llvm::StringRef Bytes, llvm::StringRef Name);

} // namespace kiln
