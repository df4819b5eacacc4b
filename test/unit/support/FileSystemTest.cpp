// Atomic writes never leave a partial file and never clobber on failure.
#include "Support/FileSystem.h"
#include "Support/Hash.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>

#include <fstream>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;

static std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

TEST_CASE("writeFileAtomically replaces the file and leaves no temp",
          "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/out.bin").str();
  REQUIRE_NO_ERROR(writeFileAtomically(Path, "first"));
  REQUIRE_NO_ERROR(writeFileAtomically(Path, "second, longer"));
  CHECK(slurp(Path) == "second, longer");
  int Count = 0;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    ++Count;
  CHECK(Count == 1); // no stray temporaries

  auto Map = mapFile(Path);
  REQUIRE(bool(Map));
  CHECK((*Map)->getBuffer() == "second, longer");
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a failed write leaves the old file alone", "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/keep.bin").str();
  REQUIRE_NO_ERROR(writeFileAtomically(Path, "precious"));
  // The target is a non-empty directory: rename must fail.
  std::string Blocked = (Dir + "/blocked").str();
  REQUIRE_FALSE(llvm::sys::fs::create_directory(Blocked));
  REQUIRE_NO_ERROR(writeFileAtomically(Blocked + "/inner", "x"));
  llvm::Error E = writeFileAtomically(Blocked, "y");
  CHECK(bool(E));
  llvm::consumeError(std::move(E));
  CHECK(slurp(Path) == "precious");
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a file written in pieces has zeros in its gaps", "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/pieces.bin").str();
  FilePiece Pieces[] = {{0, "head"}, {8, "mid"}, {13, "end"}};
  std::string Seen;
  REQUIRE_NO_ERROR(writeFileAtomically(Path, Pieces, 20,
                                       [&](llvm::StringRef Written) {
                                         Seen = Written.str();
                                         return llvm::Error::success();
                                       }));
  std::string Expected("head\0\0\0\0mid\0\0end\0\0\0\0", 20);
  CHECK(slurp(Path) == Expected);
  CHECK(Seen == Expected); // the check saw the complete file

  // A piece past the declared size is an error, and nothing is written.
  FilePiece Past[] = {{18, "toolong"}};
  llvm::Error E = writeFileAtomically(Path, Past, 20);
  REQUIRE(bool(E));
  CHECK(llvm::StringRef(toString(std::move(E))).contains("past the end"));
  CHECK(slurp(Path) == Expected);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("produced pieces are written where they belong, each made once",
          "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/produced.bin").str();
  std::atomic<int> Calls[3] = {{0}, {0}, {0}};
  auto Fill = [&](int Which, char C, size_t N) {
    return [&Calls, Which, C, N](char *Out) {
      ++Calls[Which];
      std::fill(Out, Out + N, C);
    };
  };
  // Produced pieces of different sizes between plain ones, and two produced
  // pieces in a row (the second made while the first is written).
  FilePiece Pieces[] = {{0, "head"},
                        {4, {}, Fill(0, 'a', 3), 3},
                        {8, "mid"},
                        {11, {}, Fill(1, 'b', 5), 5},
                        {16, {}, Fill(2, 'c', 2), 2}};
  REQUIRE_NO_ERROR(writeFileAtomically(Path, Pieces, 20));
  CHECK(slurp(Path) == std::string("headaaa\0midbbbbbcc\0\0", 20));
  for (auto &N : Calls)
    CHECK(N == 1);
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a failing check leaves the old file and no temporary",
          "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/model.kiln").str();
  REQUIRE_NO_ERROR(writeFileAtomically(Path, "old model"));
  FilePiece New[] = {{0, "new model"}};
  llvm::Error E = writeFileAtomically(Path, New, 9, [](llvm::StringRef) {
    return llvm::createStringError(std::errc::invalid_argument, "rejected");
  });
  REQUIRE(bool(E));
  CHECK(toString(std::move(E)) == "rejected");
  CHECK(slurp(Path) == "old model");
  int Count = 0;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    ++Count;
  CHECK(Count == 1);
  llvm::sys::fs::remove_directories(Dir);
}

/// How many of the first Bytes of the file open as FD are in the page cache.
static size_t residentPages(int FD, size_t Bytes) {
  void *Map = ::mmap(nullptr, Bytes, PROT_READ, MAP_SHARED, FD, 0);
  REQUIRE(Map != MAP_FAILED);
  size_t Page = size_t(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> In((Bytes + Page - 1) / Page);
  REQUIRE(::mincore(Map, Bytes, In.data()) == 0);
  ::munmap(Map, Bytes);
  return size_t(std::count_if(In.begin(), In.end(),
                              [](unsigned char C) { return C & 1; }));
}

TEST_CASE("replacing a file drops the old file's cached pages first",
          "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/old.bin").str();
  const size_t Bytes = size_t(1) << 20;
  REQUIRE_NO_ERROR(writeFileAtomically(Path, std::string(Bytes, 'o')));
  REQUIRE(slurp(Path).size() == Bytes); // now in the page cache
  int Old = ::open(Path.c_str(), O_RDONLY); // the old file, after the rename
  REQUIRE(Old >= 0);
  CHECK(residentPages(Old, Bytes) > 0);
  REQUIRE_NO_ERROR(writeFileAtomically(Path, "new"));
  CHECK(residentPages(Old, Bytes) == 0);
  ::close(Old);
  CHECK(slurp(Path) == "new");
  // A FIFO where the file would go: refused at once (no hang), and it is
  // still a FIFO.
  std::string Fifo = (Dir + "/fifo").str();
  REQUIRE(::mkfifo(Fifo.c_str(), 0600) == 0);
  llvm::Error E = writeFileAtomically(Fifo, "file");
  REQUIRE(bool(E));
  CHECK(llvm::toString(std::move(E)) ==
        Fifo + ": is a FIFO; kiln writes only regular files and replaces "
               "nothing else");
  struct stat St;
  REQUIRE(::lstat(Fifo.c_str(), &St) == 0);
  CHECK(S_ISFIFO(St.st_mode));
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a file mapped while it is mapped shares the mapping",
          "[support][fs]") {
  llvm::SmallString<128> Dir;
  REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-fs-test", Dir));
  std::string Path = (Dir + "/shared.bin").str();
  std::string Other = (Dir + "/other.bin").str();
  REQUIRE_NO_ERROR(writeFileAtomically(Path, std::string(100000, 'a')));
  REQUIRE_NO_ERROR(writeFileAtomically(Other, std::string(100000, 'a')));
  auto First = requireValue(mapFile(Path));
  auto Again = requireValue(mapFile(Path));
  CHECK(Again.get() == First.get());
  // Same bytes in another file: another mapping.
  auto OtherMap = requireValue(mapFile(Other));
  CHECK(OtherMap.get() != First.get());
  // A replaced file is another file: its new bytes, while the old mapping
  // keeps the old ones.
  REQUIRE_NO_ERROR(writeFileAtomically(Path, std::string(100000, 'b')));
  auto Replaced = requireValue(mapFile(Path));
  CHECK(Replaced.get() != First.get());
  CHECK(Replaced->getBuffer()[0] == 'b');
  CHECK(First->getBuffer()[0] == 'a');
  // Once released, mapping it again works.
  First.reset();
  Again.reset();
  Replaced.reset();
  CHECK(requireValue(mapFile(Path))->getBuffer() == std::string(100000, 'b'));
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("mapFile names the file in its errors", "[support][fs]") {
  auto Map = mapFile("/nonexistent/kiln/file.onnx");
  REQUIRE_FALSE(bool(Map));
  CHECK(toString(Map.takeError()) ==
        "/nonexistent/kiln/file.onnx: cannot open: No such file or directory");
}

TEST_CASE("content hashes are stable hex", "[support][hash]") {
  // xxHash64 of the empty string with seed 0 is 0xef46db3751d8e999 (the
  // reference value published with xxHash).
  CHECK(hashToHex(contentHash("")) == "ef46db3751d8e999");
  CHECK(hashToHex(contentHash("abc")) != hashToHex(contentHash("abd")));
}
