// Reading files without copying them, and writing them so that nothing is
// ever left half-written.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <functional>
#include <memory>

namespace kiln {

/// Maps Path read-only (mmap where the OS allows it). Errors name the file.
/// Files above limits::MaxFileBytes are refused before mapping. While a
/// mapping of the file (the same inode, size and modification time) is
/// alive, mapping it again returns that one, so its pages are faulted once.
/// The file is recorded as an input of this process (see noteInputFile).
llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(llvm::StringRef Path);

/// From now on, files this process reads are recorded and no write may
/// replace one (checkOutputPath). The kiln CLI calls it at start: there a
/// command's output must never be its own input. Library users (a process
/// that maps a file and later replaces it on purpose) do not.
void protectInputFiles();

/// Drops the whole pages of [Data, Data + Size) from this process's resident
/// memory when File is a read-only mapping (madvise MADV_DONTNEED); they are
/// read again from the page cache if touched later, so nothing is lost. A
/// buffer read into the heap is left alone. Pages shared with bytes outside
/// the range are kept.
void dropMappedPages(const llvm::MemoryBuffer &File, const uint8_t *Data,
                     size_t Size);

/// Records Path (by device and inode) as an input of this process, once
/// protectInputFiles was called. mapFile does this for what it maps; readers
/// that do not go through mapFile (libtorch) call it themselves.
void noteInputFile(llvm::StringRef Path);

/// Whether Path may be written by writeFileAtomically: it must be a new name
/// or an existing regular file (not a FIFO, device, symlink, directory or
/// socket, which a rename would replace), not a recorded input, and
/// not standard output ("-", /dev/stdout), which cannot take a file that is
/// written whole and renamed into place. The error names the path and why.
llvm::Error checkOutputPath(llvm::StringRef Path);

/// Writes Bytes to Path atomically: a temporary file in the same folder is
/// written, fsynced and renamed over Path. On any failure the temporary is
/// removed and an existing Path is left untouched. Path is checked first
/// (checkOutputPath). The temporary, `.NAME.tmp-PID-XXXXXX`, is also removed
/// on SIGINT, SIGTERM and SIGHUP (the signal is then re-raised); one left by
/// a writer killed outright (its PID gone) is removed by the next write to
/// the same Path. Test-only: KILN_TEST_PAUSE_BEFORE_RENAME=SUFFIX makes a
/// write to a path ending in SUFFIX stop before the rename until a signal.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Bytes);

/// Writes a piece's bytes into Out (aligned to at least 16 bytes).
using PieceProducer = std::function<void(char *Out)>;

/// Bytes placed at Offset in a file; what no piece covers reads as zeros.
/// A piece is either Bytes in memory or, when Produce is set, ProducedSize
/// bytes that Produce writes as the file is written (weights packed straight
/// into the writer's buffer, so the packed model never exists in memory as a
/// whole).
struct FilePiece {
  uint64_t Offset;
  llvm::StringRef Bytes;
  PieceProducer Produce = nullptr;
  uint64_t ProducedSize = 0;
  /// Runs once the piece is written: a piece of a file mapping drops its
  /// pages from resident memory there, so writing a large model touches one
  /// weight at a time rather than keeping every written weight resident.
  std::function<void()> Written = nullptr;

  uint64_t size() const { return Produce ? ProducedSize : Bytes.size(); }
};

/// writeFileAtomically for a file of Size bytes given as pieces, written in
/// the order given (usually that of Offset), so a large file (a model's
/// weights) is never assembled in memory.
/// Produced pieces are made one ahead on a second thread, so producing the
/// next overlaps writing this one. When Check is
/// given, it runs on the written temporary (mapped) before the rename; its
/// error leaves Path untouched.
llvm::Error writeFileAtomically(
    llvm::StringRef Path, llvm::ArrayRef<FilePiece> Pieces, uint64_t Size,
    llvm::function_ref<llvm::Error(llvm::StringRef Written)> Check = nullptr);

} // namespace kiln
