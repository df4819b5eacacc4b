#include "Support/FileSystem.h"

#include "Support/Error.h"
#include "Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <future>
#include <map>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <vector>

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

/// The files this process has read (by device and inode), so that a write
/// never replaces one of its own inputs: `kiln convert m.onnx -o m.onnx`
/// would otherwise destroy the model it was given.
class InputFiles {
public:
  void note(llvm::StringRef Path, dev_t Dev, ino_t Ino) {
    std::lock_guard<std::mutex> Lock(M);
    for (const Entry &E : Files)
      if (E.Dev == Dev && E.Ino == Ino)
        return;
    Files.push_back({Dev, Ino, Path.str()});
  }
  /// The path an input with this identity was read as, or "".
  std::string find(dev_t Dev, ino_t Ino) {
    std::lock_guard<std::mutex> Lock(M);
    for (const Entry &E : Files)
      if (E.Dev == Dev && E.Ino == Ino)
        return E.Path;
    return "";
  }

private:
  struct Entry {
    dev_t Dev;
    ino_t Ino;
    std::string Path;
  };
  std::mutex M;
  std::vector<Entry> Files;
};

InputFiles &inputFiles() {
  static InputFiles Files;
  return Files;
}

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFileImpl(llvm::StringRef Path, bool IsInput);

} // namespace

namespace {
std::atomic<bool> ProtectInputs{false};
} // namespace

void dropMappedPages(const llvm::MemoryBuffer &File, const uint8_t *Data,
                     size_t Size) {
  if (File.getBufferKind() != llvm::MemoryBuffer::MemoryBuffer_MMap || !Size)
    return;
  const auto *Start = reinterpret_cast<const uint8_t *>(File.getBufferStart());
  const auto *End = reinterpret_cast<const uint8_t *>(File.getBufferEnd());
  if (Data < Start || Data > End || Size > size_t(End - Data))
    return;
  uintptr_t Page = uintptr_t(::sysconf(_SC_PAGESIZE));
  uintptr_t Lo = (uintptr_t(Data) + Page - 1) / Page * Page;
  uintptr_t Hi = (uintptr_t(Data) + Size) / Page * Page;
  if (Hi > Lo)
    (void)::madvise(reinterpret_cast<void *>(Lo), Hi - Lo, MADV_DONTNEED);
}

void protectInputFiles() { ProtectInputs = true; }

void noteInputFile(llvm::StringRef Path) {
  if (!ProtectInputs)
    return;
  struct stat St;
  if (::stat(Path.str().c_str(), &St) == 0)
    inputFiles().note(Path, St.st_dev, St.st_ino);
}

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFile(llvm::StringRef Path) {
  return mapFileImpl(Path, /*IsInput=*/true);
}

namespace {

llvm::Expected<std::shared_ptr<llvm::MemoryBuffer>>
mapFileImpl(llvm::StringRef Path, bool IsInput) {
  llvm::sys::fs::file_status Status;
  if (std::error_code EC = llvm::sys::fs::status(Path, Status))
    return inputError("{0}: cannot open: {1}", Path, EC.message());
  if (Status.type() == llvm::sys::fs::file_type::directory_file)
    return inputError("{0}: is a directory, expected a file", Path);
  if (Status.getSize() > limits::MaxFileBytes)
    return inputError("{0}: file is {1} bytes, above the {2}-byte limit", Path,
                      Status.getSize(), limits::MaxFileBytes);
  if (IsInput)
    noteInputFile(Path);
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

} // namespace

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

//===-- Temporaries in flight -----------------------------------------------===//
//
// A temporary is removed by the writer on every error, but a signal ends the
// process without unwinding: Ctrl-C, SIGTERM or SIGHUP during a conversion
// would leave a temporary as large as the model. The handler unlinks the
// registered ones and re-raises, so the exit status is still the signal's.
// It may only do async-signal-safe things, so the paths live in a fixed
// array of fixed-size buffers, filled before a slot is marked in use.

constexpr int MaxInFlight = 16;
char InFlightPath[MaxInFlight][PATH_MAX];
std::atomic<bool> InFlightUsed[MaxInFlight];
std::mutex InFlightLock; // between writers; the handler only reads

constexpr int CleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void removeTemporariesAndReraise(int Sig) {
  for (int I = 0; I < MaxInFlight; ++I)
    if (InFlightUsed[I].load())
      ::unlink(InFlightPath[I]);
  ::signal(Sig, SIG_DFL);
  ::raise(Sig);
}

void installCleanupHandlers() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    for (int Sig : CleanupSignals) {
      struct sigaction Old;
      if (::sigaction(Sig, nullptr, &Old) != 0 || Old.sa_handler == SIG_IGN)
        continue; // under nohup a hangup stays ignored
      struct sigaction New = {};
      New.sa_handler = removeTemporariesAndReraise;
      sigemptyset(&New.sa_mask);
      for (int Other : CleanupSignals)
        sigaddset(&New.sa_mask, Other);
      ::sigaction(Sig, &New, nullptr);
    }
  });
}

/// Registers a temporary for removal on a signal; -1 when every slot is
/// taken (the temporary is then only removed on errors, as before).
int registerTemporary(llvm::StringRef Path) {
  installCleanupHandlers();
  if (Path.size() >= PATH_MAX)
    return -1;
  std::lock_guard<std::mutex> Lock(InFlightLock);
  for (int I = 0; I < MaxInFlight; ++I)
    if (!InFlightUsed[I].load()) {
      std::memcpy(InFlightPath[I], Path.data(), Path.size());
      InFlightPath[I][Path.size()] = '\0';
      InFlightUsed[I].store(true);
      return I;
    }
  return -1;
}

void unregisterTemporary(int Slot) {
  if (Slot < 0)
    return;
  std::lock_guard<std::mutex> Lock(InFlightLock);
  InFlightUsed[Slot].store(false);
}

/// `kill -9` leaves a temporary that no handler can remove. Temporaries are
/// named `.NAME.tmp-PID-XXXXXX` after the process that writes them, so the
/// next write to NAME removes those whose writer is gone.
void removeStaleTemporaries(llvm::StringRef Dir, llvm::StringRef Name) {
  std::string Prefix = ("." + Name + ".tmp-").str();
  DIR *D = ::opendir(Dir.str().c_str());
  if (!D)
    return;
  while (struct dirent *E = ::readdir(D)) {
    llvm::StringRef Entry(E->d_name);
    if (!Entry.consume_front(Prefix))
      continue;
    auto [PidText, Rest] = Entry.split('-');
    long Pid;
    if (Rest.empty() || PidText.getAsInteger(10, Pid) || Pid <= 0)
      continue;
    if (::kill(pid_t(Pid), 0) == 0 || errno != ESRCH)
      continue; // alive (or not ours to judge)
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, E->d_name);
    ::unlink(P.c_str());
  }
  ::closedir(D);
}

/// Test-only hook (tests of signals and of the .kir pair): with
/// KILN_TEST_PAUSE_BEFORE_RENAME set to a suffix of Path, the writer says so
/// on stderr and waits for a signal once the temporary is complete.
void maybePauseBeforeRename(llvm::StringRef Path, llvm::StringRef Temp) {
  const char *Suffix = std::getenv("KILN_TEST_PAUSE_BEFORE_RENAME");
  if (!Suffix || !*Suffix || !Path.endswith(Suffix))
    return;
  std::string Msg = ("kiln: test hook: paused before renaming " + Temp +
                     " to " + Path + "\n")
                        .str();
  (void)!::write(2, Msg.data(), Msg.size());
  for (;;)
    ::pause();
}

bool isStandardOutput(llvm::StringRef Path) {
  return Path == "-" || Path == "/dev/stdout" || Path == "/dev/fd/1" ||
         Path == "/proc/self/fd/1";
}

const char *fileTypeName(mode_t Mode) {
  if (S_ISDIR(Mode))
    return "a directory";
  if (S_ISLNK(Mode))
    return "a symlink";
  if (S_ISFIFO(Mode))
    return "a FIFO";
  if (S_ISCHR(Mode))
    return "a character device";
  if (S_ISBLK(Mode))
    return "a block device";
  if (S_ISSOCK(Mode))
    return "a socket";
  return "not a regular file";
}

} // namespace

llvm::Error checkOutputPath(llvm::StringRef Path) {
  if (isStandardOutput(Path))
    return inputError("{0}: this file is written whole and renamed into "
                      "place, so it cannot go to standard output; give a "
                      "file name",
                      Path);
  struct stat St;
  if (::lstat(Path.str().c_str(), &St) != 0)
    return llvm::Error::success(); // a new file (or a folder missing: said later)
  if (!S_ISREG(St.st_mode))
    return inputError("{0}: is {1}; kiln writes only regular files and "
                      "replaces nothing else",
                      Path, fileTypeName(St.st_mode));
  std::string Input = inputFiles().find(St.st_dev, St.st_ino);
  if (!Input.empty())
    return inputError("{0}: is the input '{1}' of this command; refusing to "
                      "overwrite it (write elsewhere, then move it)",
                      Path, Input);
  return llvm::Error::success();
}

namespace {

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
  // Before anything is created: a FIFO, device or symlink named by -o is
  // refused, never replaced by a regular file, and so is an input.
  if (llvm::Error E = checkOutputPath(Path))
    return E;
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  removeStaleTemporaries(Dir, Name);
  llvm::SmallString<256> Model(Dir);
  llvm::sys::path::append(Model, "." + Name + ".tmp-" +
                                     std::to_string(::getpid()) + "-%%%%%%");
  int FD = -1;
  llvm::SmallString<256> TempPath;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Model, FD, TempPath))
    return inputError("{0}: cannot create a temporary file in '{1}': {2}", Path,
                      Dir, EC.message());
  int Slot = registerTemporary(TempPath);
  auto RemoveTemp = [&] {
    llvm::sys::fs::remove(TempPath);
    unregisterTemporary(Slot);
  };
  auto Fail = [&](llvm::StringRef What) -> llvm::Error {
    std::string Reason = std::strerror(errno);
    ::close(FD);
    RemoveTemp();
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
    if (Piece.Written)
      Piece.Written();
  }
  if (::fsync(FD) != 0)
    return Fail("fsync");
  if (::close(FD) != 0) {
    std::string Reason = std::strerror(errno);
    RemoveTemp();
    return inputError("{0}: close failed: {1}", Path, Reason);
  }
  if (Check) {
    llvm::Error E = llvm::Error::success();
    if (Size == 0) {
      E = Check("");
    } else if (auto Written = mapFileImpl(TempPath, /*IsInput=*/false)) {
      E = Check((*Written)->getBuffer());
    } else {
      E = Written.takeError();
    }
    if (E) {
      RemoveTemp();
      return E;
    }
  }
  maybePauseBeforeRename(Path, TempPath);
  // Checked again: something may have taken the name while we wrote.
  if (llvm::Error E = checkOutputPath(Path)) {
    RemoveTemp();
    return E;
  }
  if (std::error_code EC = llvm::sys::fs::rename(TempPath, Path)) {
    RemoveTemp();
    return inputError("{0}: cannot rename the temporary file into place: {1}",
                      Path, EC.message());
  }
  unregisterTemporary(Slot);
  return llvm::Error::success();
}

} // namespace kiln
