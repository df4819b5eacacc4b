#include "Support/Scratch.h"

#include "Support/Logging.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln {

namespace {

std::mutex DirectoryLock;
std::string Directory;
std::atomic<uint64_t> SpillMin{0};
std::atomic<uint64_t> Spilled{0};

uint64_t pageSize() { return uint64_t(::sysconf(_SC_PAGESIZE)); }

/// One warning per process: large weights stay in memory from then on
/// (each is tried again; a folder may get space back).
void warnOnce(const std::string &Dir, int Errno) {
  static std::atomic<bool> Warned{false};
  if (!Warned.exchange(true))
    log().warn("{}: cannot use a scratch file ({}); large weights stay in "
               "memory",
               Dir, std::strerror(Errno));
}

/// The spill file: opened on first use, never named (O_TMPFILE, or created
/// and unlinked at once), so nothing is left behind whatever ends the
/// process. A folder that cannot take it is tried again at the next large
/// buffer (warned about once). Ranges are handed out at page-aligned offsets and never reused;
/// a freed range becomes a hole, which gives its disk and cache back.
class SpillFile {
public:
  // Never closed: a mapping may outlive any destructor that could close it
  // (static destruction at exit), and its hole must not land in another
  // file that reused the descriptor.

  /// A page-aligned range of Size bytes, or -1 when the file cannot be had.
  int64_t reserve(uint64_t Size, int &OutFd) {
    std::lock_guard<std::mutex> L(M);
    std::string Dir = scratchDirectory();
    // Nothing spilled is alive: the file can move to today's folder.
    if (Fd >= 0 && Dir != OpenedIn && Spilled == 0) {
      ::close(Fd);
      Fd = -1;
    }
    if (Fd < 0)
      open(Dir);
    if (Fd < 0)
      return -1;
    uint64_t At = End;
    End += (Size + pageSize() - 1) / pageSize() * pageSize();
    Spilled += Size; // alive from now: the file stays until it is released
    OutFd = Fd;
    return int64_t(At);
  }

private:
  void open(const std::string &Dir) {
#ifdef O_TMPFILE
    Fd = ::open(Dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (Fd < 0) {
      llvm::SmallString<256> Name(Dir);
      llvm::sys::path::append(Name, ".kiln-spill-XXXXXX");
      Fd = ::mkostemp(Name.data(), O_CLOEXEC);
      if (Fd >= 0)
        ::unlink(Name.c_str());
    }
    if (Fd >= 0) {
      OpenedIn = Dir;
      End = 0;
      return;
    }
    int Errno = errno;
    warnOnce(Dir, Errno);
  }

  std::mutex M;
  int Fd = -1;
  std::string OpenedIn;
  uint64_t End = 0;
};

SpillFile &spillFile() {
  static SpillFile F;
  return F;
}

/// Makes a spilled range a hole in the file, which gives its disk and cache
/// back, and stops counting it.
void releaseRange(int Fd, uint64_t Offset, uint64_t Size) {
  (void)::fallocate(Fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                    off_t(Offset), off_t(Size));
  Spilled -= Size;
}

/// One spilled range, mapped read-only; its range of the file becomes a
/// hole when it goes.
class SpillMapping : public llvm::MemoryBuffer {
public:
  SpillMapping(int Fd, uint64_t Offset, uint64_t Size, void *Map)
      : Fd(Fd), Offset(Offset), Size(Size), Map(Map) {
    const char *Start = static_cast<const char *>(Map);
    init(Start, Start + Size, /*RequiresNullTerminator=*/false);
  }
  ~SpillMapping() override {
    ::munmap(Map, Size);
    releaseRange(Fd, Offset, Size);
  }
  SpillMapping(const SpillMapping &) = delete;
  SpillMapping &operator=(const SpillMapping &) = delete;

  BufferKind getBufferKind() const override { return MemoryBuffer_MMap; }
  llvm::StringRef getBufferIdentifier() const override { return "<spill>"; }

private:
  int Fd;
  uint64_t Offset;
  uint64_t Size;
  void *Map;
};

bool writeAll(int Fd, const uint8_t *P, uint64_t Left, uint64_t At) {
  errno = 0;
  while (Left > 0) {
    ssize_t N = ::pwrite(Fd, P, size_t(Left), off_t(At));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    P += N;
    At += uint64_t(N);
    Left -= uint64_t(N);
  }
  return true;
}

} // namespace

void setScratchDirectory(llvm::StringRef Dir) {
  std::lock_guard<std::mutex> L(DirectoryLock);
  Directory = Dir.empty() ? std::string(".") : Dir.str();
}

std::string scratchDirectory() {
  std::lock_guard<std::mutex> L(DirectoryLock);
  if (!Directory.empty())
    return Directory;
  llvm::SmallString<256> Tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
  return std::string(Tmp);
}

void setScratchBeside(llvm::StringRef OutputPath) {
  setScratchDirectory(llvm::sys::path::parent_path(OutputPath));
}

void enableWeightSpill(uint64_t MinBytes) { SpillMin = MinBytes; }

WeightSpillScope::WeightSpillScope(llvm::StringRef OutputPath,
                                   uint64_t MinBytes)
    : PreviousMin(SpillMin) {
  {
    std::lock_guard<std::mutex> L(DirectoryLock);
    PreviousDirectory = Directory;
  }
  if (!OutputPath.empty())
    setScratchBeside(OutputPath);
  enableWeightSpill(MinBytes);
}

WeightSpillScope::~WeightSpillScope() {
  enableWeightSpill(PreviousMin);
  std::lock_guard<std::mutex> L(DirectoryLock);
  Directory = PreviousDirectory;
}

uint64_t spilledBytes() { return Spilled; }

std::shared_ptr<const llvm::MemoryBuffer>
spillBytes(llvm::ArrayRef<uint8_t> Bytes) {
  uint64_t Min = SpillMin;
  if (Min == 0 || Bytes.size() < Min)
    return nullptr;
  int Fd = -1;
  int64_t At = spillFile().reserve(Bytes.size(), Fd);
  if (At < 0)
    return nullptr;
  if (!writeAll(Fd, Bytes.data(), Bytes.size(), uint64_t(At))) {
    int Errno = errno ? errno : ENOSPC;
    warnOnce(scratchDirectory(), Errno);
    releaseRange(Fd, uint64_t(At), Bytes.size());
    return nullptr;
  }
  void *Map = ::mmap(nullptr, Bytes.size(), PROT_READ, MAP_SHARED, Fd, off_t(At));
  if (Map == MAP_FAILED) {
    releaseRange(Fd, uint64_t(At), Bytes.size());
    return nullptr;
  }
  return std::make_shared<SpillMapping>(Fd, uint64_t(At), Bytes.size(), Map);
}

} // namespace kiln
