// Weight spilling: a large constant made while converting moves to an
// unlinked scratch file, reads back the same bytes, leaves resident memory
// when released, and frees its disk when it goes; a buffer still being
// filled (the interpreter's outputs) never moves.
#include "IR/Tensor.h"
#include "IR/Type.h"
#include "Support/Scratch.h"

#include "llvm/Support/FileSystem.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <memory>
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

/// A u8 tensor holding Bytes, on the heap.
Tensor bytesTensor(std::vector<uint8_t> Bytes) {
  int64_t N = int64_t(Bytes.size());
  return Tensor(TensorType(ElementType::U8, {N}), Buffer::own(std::move(Bytes)));
}

/// Spilling on into a fresh folder for one test, off again after.
struct SpillScope {
  llvm::SmallString<128> Dir;
  std::unique_ptr<WeightSpillScope> Spill;
  SpillScope(uint64_t MinBytes) {
    REQUIRE_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-spill-test", Dir));
    Spill = std::make_unique<WeightSpillScope>((Dir + "/out.kiln").str(),
                                               MinBytes);
  }
  ~SpillScope() {
    Spill.reset();
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

TEST_CASE("a large constant moves to the spill file, a small one stays",
          "[support][spill]") {
  SpillScope Scope(1 << 20);
  CHECK(scratchDirectory() == std::string(Scope.Dir));
  uint64_t Before = spilledBytes();
  std::vector<uint8_t> Want = pattern(3 << 20 | 123);
  {
    Tensor LargeT = Tensor::spilledIfLarge(bytesTensor(Want));
    const Buffer &Large = LargeT.buffer();
    Buffer Small = Tensor::spilledIfLarge(bytesTensor(pattern(1000))).buffer();
    CHECK(LargeT.type() == TensorType(ElementType::U8, {int64_t(Want.size())}));
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

TEST_CASE("spilling is off unless asked for, and off after its scope",
          "[support][spill]") {
  CHECK_FALSE(Tensor::spilledIfLarge(bytesTensor(pattern(8 << 20)))
                  .buffer()
                  .isAlias());
  { SpillScope Scope(1 << 20); }
  CHECK_FALSE(Tensor::spilledIfLarge(bytesTensor(pattern(8 << 20)))
                  .buffer()
                  .isAlias());
}

TEST_CASE("a buffer being filled stays on the heap while spilling is on",
          "[support][spill]") {
  // The interpreter writes its outputs into Buffer::own's bytes: they must
  // never be a read-only mapping.
  SpillScope Scope(1 << 20);
  Buffer B = Buffer::own(std::vector<uint8_t>(8 << 20));
  CHECK_FALSE(B.isAlias());
  const_cast<uint8_t *>(B.data())[(8 << 20) - 1] = 7;
  CHECK(B.data()[(8 << 20) - 1] == 7);
}

TEST_CASE("a spilled buffer leaves resident memory when released and reads "
          "back the same",
          "[support][spill]") {
  SpillScope Scope(1 << 20);
  const size_t Size = 32 << 20;
  std::vector<uint8_t> Want = pattern(Size);
  Tensor T = Tensor::spilledIfLarge(bytesTensor(Want));
  const Buffer &B = T.buffer();
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
