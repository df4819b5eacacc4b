// Weight spilling: a large buffer made while converting moves to an unlinked
// scratch file, reads back the same bytes, leaves resident memory when
// released, and frees its disk when it goes.
#include "IR/Tensor.h"
#include "Support/Scratch.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

using namespace kiln;

namespace {

/// This process's resident file-backed memory (RssFile), in bytes.
uint64_t residentFileBytes() {
  std::ifstream In("/proc/self/status");
  std::string Key;
  uint64_t Kb = 0;
  while (In >> Key) {
    if (Key == "RssFile:") {
      In >> Kb;
      return Kb * 1024;
    }
    In.ignore(1 << 12, '\n');
  }
  return 0;
}

std::vector<uint8_t> pattern(size_t Size) {
  std::vector<uint8_t> Bytes(Size);
  for (size_t I = 0; I < Size; ++I)
    Bytes[I] = uint8_t(I * 2654435761u >> 13);
  return Bytes;
}

/// Spilling on into a fresh folder for one test, off again after.
struct SpillScope {
  llvm::SmallString<128> Dir;
  SpillScope(uint64_t MinBytes) {
    REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-spill-test", Dir));
    setScratchDirectory(Dir);
    enableWeightSpill(MinBytes);
  }
  ~SpillScope() {
    enableWeightSpill(0);
    llvm::sys::fs::remove_directories(Dir);
  }
  /// Entries in the folder: the spill file has no name, so always 0.
  int entries() const {
    std::error_code EC;
    int N = 0;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      ++N;
    return N;
  }
};

} // namespace

TEST_CASE("a large owned buffer moves to the spill file, a small one stays",
          "[support][spill]") {
  SpillScope Scope(1 << 20);
  uint64_t Before = spilledBytes();
  std::vector<uint8_t> Want = pattern(3 << 20 | 123);
  {
    Buffer Large = Buffer::own(Want);
    Buffer Small = Buffer::own(pattern(1000));
    CHECK(Large.isAlias());
    CHECK_FALSE(Small.isAlias());
    CHECK(spilledBytes() - Before == Want.size());
    REQUIRE(Large.size() == Want.size());
    CHECK(std::equal(Want.begin(), Want.end(), Large.data()));
    CHECK(Large.isAligned(64));
    CHECK(Scope.entries() == 0);
  }
  CHECK(spilledBytes() == Before);
}

TEST_CASE("spilling is off unless asked for", "[support][spill]") {
  enableWeightSpill(0);
  Buffer B = Buffer::own(pattern(8 << 20));
  CHECK_FALSE(B.isAlias());
}

TEST_CASE("a spilled buffer leaves resident memory when released and reads "
          "back the same",
          "[support][spill]") {
  SpillScope Scope(1 << 20);
  const size_t Size = 32 << 20;
  std::vector<uint8_t> Want = pattern(Size);
  Buffer B = Buffer::own(Want);
  REQUIRE(B.isAlias());
  uint64_t Sum = 0;
  for (size_t I = 0; I < Size; I += 4096)
    Sum += B.data()[I];
  uint64_t Touched = residentFileBytes();
  B.releaseResident();
  uint64_t Released = residentFileBytes();
  INFO("RssFile touched " << Touched << ", released " << Released << ", sum "
                          << Sum);
  CHECK(Touched - Released >= Size - (1 << 20));
  CHECK(std::equal(Want.begin(), Want.end(), B.data()));
}

TEST_CASE("a heap buffer is left alone by releaseResident", "[support][spill]") {
  std::vector<uint8_t> Want = pattern(1 << 16);
  Buffer B = Buffer::own(Want);
  B.releaseResident();
  CHECK(std::equal(Want.begin(), Want.end(), B.data()));
}
