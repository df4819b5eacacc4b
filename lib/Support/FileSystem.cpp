#include "Support/FileSystem.h"

#include "Support/Error.h"
#include "Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <map>
#include <mutex>
#include <new>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace kiln {

namespace {

/// The mappings alive in this process, by file identity (inode, size and
/// modification time): a file mapped while it is still mapped (a model
/// hashed on one thread and imported on another) shares the one mapping, and
/// its pages are faulted in once.
class LiveMappings {
public:
  using Buffer = std::shared_ptr<llvm::MemoryBuffer>;

  /// The live mapping of the file whose status is S, or Map's new one.
  llvm::Expected<Buffer>
  getOrMap(const llvm::sys::fs::file_status &S,
           llvm::function_ref<llvm::Expected<Buffer>()> Map) {
    Key K{S.getUniqueID(), S.getSize(),
          S.getLastModificationTime().time_since_epoch().count()};
    std::lock_guard<std::mutex> Lock(M);
    auto It = Live.find(K);
    if (It != Live.end())
      if (Buffer Shared = It->second.lock())
        return Shared;
    auto Buf = Map();
    if (!Buf || (*Buf)->getBufferSize() != S.getSize()) // or it changed
      return Buf;
    for (auto E = Live.begin(); E != Live.end();) // drop the expired
      E = E->second.expired() ? Live.erase(E) : std::next(E);
    Live[K] = *Buf;
    return Buf;
  }

private:
  using Key = std::tuple<llvm::sys::fs::UniqueID, uint64_t, int64_t>;
  std::mutex M;
  std::map<Key, std::weak_ptr<llvm::MemoryBuffer>> Live;
};

} // namespace

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(llvm::StringRef Path) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return inputError("{0}: cannot open: {1}", Path, EC.message());
  if (Status.type() == llvm::sys::fs::file_type::directory_file)
    return inputError("{0}: is a directory, expected a file", Path);
  if (Status.getSize() > limits::MaxFileBytes)
    return inputError("{0}: file is {1} bytes, above the {2}-byte limit", Path,
                      Status.getSize(), limits::MaxFileBytes);
  static LiveMappings Live;
  return Live.getOrMap(
      Status, [&]() -> llvm::Expected<LiveMappings::Buffer> {
        auto BufOrErr = llvm::MemoryBuffer::getFile(
            Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
        if (!BufOrErr)
          return inputError("{0}: cannot read: {1}", Path,
                            BufOrErr.getError().message());
        return LiveMappings::Buffer(std::move(*BufOrErr));
      });
}

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Bytes) {
  FilePiece Whole{0, Bytes};
  return writeFileAtomically(Path, Whole, Bytes.size());
}

namespace {

/// The produced pieces of a file, made in order one ahead of the writer: while
/// the writer writes piece k from one staging buffer, a second thread
/// produces piece k+1 into the other.
class ProducedPieces {
public:
  explicit ProducedPieces(llvm::ArrayRef<FilePiece> Pieces) : Pieces(Pieces) {
    uint64_t Largest = 0;
    for (size_t I = 0; I < Pieces.size(); ++I)
      if (Pieces[I].Produce) {
        Order.push_back(I);
        Largest = std::max(Largest, Pieces[I].ProducedSize);
      }
    if (Order.empty())
      return;
    for (auto &S : Staging) // uninitialized: every byte is produced
      S.reset(new (std::align_val_t(64)) char[Largest]);
    start(0);
  }
  ~ProducedPieces() {
    if (Pending.valid())
      Pending.wait();
  }

  /// The bytes of piece I, the next produced piece in writing order.
  const char *take(size_t I) {
    assert(Next < Order.size() && Order[Next] == I && "pieces out of order");
    (void)I;
    Pending.get();
    const char *Ready = Staging[Next % 2].get();
    if (++Next < Order.size())
      start(Next); // into the other buffer, whose piece is written
    return Ready;
  }

private:
  void start(size_t K) {
    Pending = std::async(std::launch::async, [this, K] {
      Pieces[Order[K]].Produce(Staging[K % 2].get());
    });
  }

  struct AlignedDelete {
    void operator()(char *P) const { ::operator delete[](P, std::align_val_t(64)); }
  };
  llvm::ArrayRef<FilePiece> Pieces;
  std::vector<size_t> Order;
  std::unique_ptr<char[], AlignedDelete> Staging[2];
  std::future<void> Pending;
  size_t Next = 0;
};

/// The file being replaced keeps its bytes until the rename, but not its
/// cached pages: they would be freed at the rename anyway. Dropped first,
/// they are the pages the new file is written into, rather than memory not
/// touched for a while, which a virtual machine may have handed back to its
/// host (measured to make a ResNet-50 conversion after other work
/// noticeably faster; docs/benchmarks.md has the figures). Replacing a file
/// in place with O_TRUNC, as most tools do, frees them first in the same
/// way. Advisory: only clean, unmapped pages go.
void dropCachedPages(llvm::StringRef Path) {
  // Non-blocking: a FIFO in the way must not hang the write.
  int Old = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Old < 0)
    return;
  struct stat St;
  if (::fstat(Old, &St) == 0 && S_ISREG(St.st_mode))
    (void)::posix_fadvise(Old, 0, 0, POSIX_FADV_DONTNEED);
  ::close(Old);
}

} // namespace

llvm::Error writeFileAtomically(
    llvm::StringRef Path, llvm::ArrayRef<FilePiece> Pieces, uint64_t Size,
    llvm::function_ref<llvm::Error(llvm::StringRef Written)> Check) {
  llvm::SmallString<256> Dir(Path);
  llvm::sys::path::remove_filename(Dir);
  if (Dir.empty())
    Dir = ".";
  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model,
                          "." + llvm::sys::path::filename(Path) + ".tmp-%%%%%%");
  int FD = -1;
  llvm::SmallString<256> TempPath;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Model, FD, TempPath))
    return inputError("{0}: cannot create a temporary file in '{1}': {2}", Path,
                      Dir, EC.message());
  auto Fail = [&](llvm::StringRef What) -> llvm::Error {
    std::string Reason = std::strerror(errno);
    ::close(FD);
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: {1} failed: {2}", Path, What, Reason);
  };
  dropCachedPages(Path);
  // The size first: gaps between pieces then read as zeros.
  if (::ftruncate(FD, off_t(Size)) != 0)
    return Fail("ftruncate");
  // Writeback of each written stretch starts at once, so the disk works
  // while the rest is copied and the fsync below waits only for the tail.
  // Advisory: where it fails, the fsync still writes everything.
  constexpr uint64_t WritebackChunk = uint64_t(8) << 20;
  uint64_t WrittenSince = 0;
  auto StartWriteback = [&](uint64_t End) {
    if (End < WrittenSince + WritebackChunk) // or a piece written out of order
      return;
    (void)::sync_file_range(FD, off_t(WrittenSince), off_t(End - WrittenSince),
                            SYNC_FILE_RANGE_WRITE);
    WrittenSince = End;
  };
  ProducedPieces Produced(Pieces);
  for (size_t I = 0; I < Pieces.size(); ++I) {
    const FilePiece &Piece = Pieces[I];
    uint64_t At = Piece.Offset;
    size_t Left = size_t(Piece.size());
    if (At + Left > Size) {
      errno = EINVAL;
      return Fail("write (a piece lies past the end)");
    }
    const char *P = Piece.Produce ? Produced.take(I) : Piece.Bytes.data();
    while (Left > 0) {
      ssize_t N = ::pwrite(FD, P, Left, off_t(At));
      if (N < 0) {
        if (errno == EINTR)
          continue;
        return Fail("write");
      }
      P += N;
      At += uint64_t(N);
      Left -= size_t(N);
      StartWriteback(At);
    }
  }
  if (::fsync(FD) != 0)
    return Fail("fsync");
  if (::close(FD) != 0) {
    std::string Reason = std::strerror(errno);
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: close failed: {1}", Path, Reason);
  }
  if (Check) {
    llvm::Error E = llvm::Error::success();
    if (Size == 0) {
      E = Check("");
    } else if (auto Written = mapFile(TempPath)) {
      E = Check((*Written)->getBuffer());
    } else {
      E = Written.takeError();
    }
    if (E) {
      llvm::sys::fs::remove(TempPath);
      return E;
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(TempPath, Path)) {
    llvm::sys::fs::remove(TempPath);
    return inputError("{0}: cannot rename the temporary file into place: {1}",
                      Path, EC.message());
  }
  return llvm::Error::success();
}

} // namespace kiln
