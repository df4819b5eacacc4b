// Serializes a KilnModule into a .kiln file: the FlatBuffer first, then the
// weight segments, each at a 64-byte-aligned file offset.
//
// Deterministic: the same module gives the same bytes (fields are written in
// schema order with defaults forced, padding is zeros, nothing depends on
// time or addresses). Atomic: the file is written to a temporary, fsynced
// and renamed, so an interrupted write leaves the old file or the new one.
#pragma once

#include "backends/common/KilnModule.h"
#include "Support/FileSystem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// A .kiln file as pieces: the FlatBuffer, then each segment at its offset
/// (the gaps are zeros). The segments are M's own bytes, not copies.
struct KilnFileLayout {
  std::string FlatBuffer;
  std::vector<FilePiece> Pieces; // the FlatBuffer at offset 0, then segment
                                 // I as piece I + 1
  uint64_t Size = 0;
  /// Each segment's xxHash64 (Buffer.xxhash64). Segments held in memory are
  /// hashed by the layout, whose FlatBuffer has them; produced segments are
  /// hashed by their pieces as they are produced (LateHashed lists them),
  /// so their hashes reach the FlatBuffer bytes only through patchHashes.
  std::shared_ptr<std::vector<uint64_t>> SegmentHashes;
  std::vector<size_t> LateHashed;
  /// Writes the produced segments' hashes into the FlatBuffer at Flat (a
  /// copy of FlatBuffer), once every segment piece has been produced, and
  /// then the FlatBuffer's own hash (Model.flatbuffer_xxhash64).
  void patchHashes(char *Flat) const;
};

/// Lays M out as a file. Sets M.Model.buffers (offsets and sizes) and the
/// schema version. Internal error when a tensor names a missing segment.
/// The layout refers to M's segments and to its own FlatBuffer string: keep
/// both alive and the layout unmoved while its pieces are used.
llvm::Expected<std::unique_ptr<KilnFileLayout>> layoutKilnModule(KilnModule &M);

/// The file bytes for M, in one string (layoutKilnModule, assembled).
llvm::Expected<std::string> serializeKilnModule(KilnModule &M);

/// The source model's hash, computed while the file is written.
using LateSourceHash = std::function<uint64_t()>;

/// Writes M to Path atomically without assembling it in memory. Check, when
/// given, sees the complete written bytes before they replace Path.
///
/// The segments go to disk first and the FlatBuffer last when it has late
/// fields: the produced segments' hashes, and the source hash. When
/// SourceHash is given, metadata.source_hash (which must be present) is
/// filled in from it while the segments are written, so a hash of a large
/// source model overlaps the writing. M keeps a placeholder; the bytes written are those of M with the
/// hash in place.
llvm::Error writeKilnFile(
    llvm::StringRef Path, KilnModule &M,
    llvm::function_ref<llvm::Error(llvm::StringRef Written)> Check = nullptr,
    LateSourceHash SourceHash = nullptr);

} // namespace kiln
