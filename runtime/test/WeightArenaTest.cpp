// The arena of converted weights: aligned, zeroed, disjoint allocations in
// chunks that start on a huge page and carry the kernel's huge page advice,
// faulted in as they are handed out.
#include "cpu/WeightArena.h"

#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln::rt;

namespace {

uintptr_t address(const void *P) { return reinterpret_cast<uintptr_t>(P); }

/// The VmFlags line of the mapping holding P in /proc/self/smaps, or "".
std::string vmFlagsOf(const void *P) {
  std::ifstream Smaps("/proc/self/smaps");
  std::string Line;
  bool Inside = false;
  while (std::getline(Smaps, Line)) {
    unsigned long Lo = 0, Hi = 0;
    char Dash = 0;
    std::istringstream Range(Line);
    if (Range >> std::hex >> Lo >> Dash >> Hi && Dash == '-' &&
        Line.find(':') > Line.find(' ')) {
      Inside = Lo <= address(P) && address(P) < Hi;
      continue;
    }
    if (Inside && Line.rfind("VmFlags:", 0) == 0)
      return Line;
  }
  return "";
}

bool allZero(const uint8_t *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (P[I])
      return false;
  return true;
}

/// How many of the pages of [P, P + N) are resident, by mincore().
size_t residentPages(const void *P, size_t N) {
  const size_t Page = WeightArena::PageBytes;
  std::vector<unsigned char> In((N + Page - 1) / Page);
  if (mincore(const_cast<void *>(P), N, In.data()) != 0)
    return SIZE_MAX;
  size_t Resident = 0;
  for (unsigned char C : In)
    Resident += C & 1;
  return Resident;
}

/// Whether the running kernel takes MADV_POPULATE_WRITE (Linux 5.14), asked
/// of it directly on a page of its own.
bool kernelPopulates() {
#ifdef MADV_POPULATE_WRITE
  const size_t Page = WeightArena::PageBytes;
  void *P = mmap(nullptr, Page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (P == MAP_FAILED)
    return false;
  // The page itself, not madvise's result: QEMU's user mode (the aarch64
  // tests) accepts every advice and acts on none.
  const bool Takes = madvise(P, Page, MADV_POPULATE_WRITE) == 0 &&
                     residentPages(P, Page) == 1;
  munmap(P, Page);
  return Takes;
#else
  return false;
#endif
}

/// Whether the kernel records MADV_HUGEPAGE on a mapping (the "hg" VmFlag):
/// Linux with transparent huge pages does; QEMU's user mode ignores it.
bool kernelRecordsHugePageAdvice() {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
    return false;
  const size_t Bytes = WeightArena::HugePageBytes;
  void *P = mmap(nullptr, Bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (P == MAP_FAILED)
    return false;
  const bool Records = madvise(P, Bytes, MADV_HUGEPAGE) == 0 &&
                       vmFlagsOf(P).find(" hg") != std::string::npos;
  munmap(P, Bytes);
  return Records;
}

/// Whether the kernel puts every anonymous mapping on huge pages.
bool thpAlways() {
  std::ifstream Mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string Line;
  std::getline(Mode, Line);
  return Line.find("[always]") != std::string::npos;
}

} // namespace

TEST_CASE("allocations are 64-byte aligned, zeroed and disjoint",
          "[weight-arena]") {
  WeightArena A;
  auto *P = static_cast<uint8_t *>(A.allocate(100));
  auto *Q = static_cast<uint8_t *>(A.allocate(1));
  auto *R = static_cast<uint8_t *>(A.allocate(4096));
  REQUIRE(P);
  REQUIRE(Q);
  REQUIRE(R);
  CHECK(address(P) % 64 == 0);
  CHECK(address(Q) % 64 == 0);
  CHECK(address(R) % 64 == 0);
  // Bump allocation: each one right after the last, rounded up to 64.
  CHECK(Q == P + 128);
  CHECK(R == Q + 64);
  CHECK(A.bytes() == 128 + 64 + 4096);
  CHECK(A.chunks() == 1);
  CHECK(allZero(P, 100));
  CHECK(allZero(R, 4096));
  std::memset(P, 0xab, 100);
  CHECK(Q[0] == 0);
}

TEST_CASE("a chunk starts on a huge page", "[weight-arena]") {
  WeightArena A;
  void *P = A.allocate(64);
  REQUIRE(P);
  CHECK(address(P) % WeightArena::HugePageBytes == 0);
}

TEST_CASE("a weight larger than a chunk gets a chunk of its own",
          "[weight-arena]") {
  WeightArena A;
  REQUIRE(A.allocate(1000));
  const size_t Big = WeightArena::ChunkBytes + 12345;
  auto *P = static_cast<uint8_t *>(A.allocate(Big));
  REQUIRE(P);
  CHECK(A.chunks() == 2);
  CHECK(address(P) % WeightArena::HugePageBytes == 0);
  P[0] = 1;
  P[Big - 1] = 2; // writable to its last byte
  CHECK(P[Big - 1] == 2);
  // The next allocation does not fit what is left of the big chunk.
  REQUIRE(A.allocate(WeightArena::HugePageBytes * 2));
  CHECK(A.chunks() == 3);
}

TEST_CASE("chunks carry the huge page advice", "[weight-arena]") {
  if (!kernelRecordsHugePageAdvice()) {
    WARN("this kernel (or emulator) keeps no huge page advice: not checked");
    return;
  }
  WeightArena A;
  A.setHugePages(true);
  void *P = A.allocate(3 * WeightArena::HugePageBytes);
  REQUIRE(P);
  std::string Flags = vmFlagsOf(P);
  INFO(Flags);
  REQUIRE(!Flags.empty());
  CHECK(Flags.find(" hg") != std::string::npos); // MADV_HUGEPAGE
}

TEST_CASE("by default, chunks carry no advice", "[weight-arena]") {
  WeightArena A;
  void *P = A.allocate(3 * WeightArena::HugePageBytes);
  REQUIRE(P);
  std::string Flags = vmFlagsOf(P);
  INFO(Flags);
  REQUIRE(!Flags.empty());
  CHECK(Flags.find(" hg") == std::string::npos);
}

TEST_CASE("an allocation's pages are faulted in when it is made",
          "[weight-arena]") {
  if (!kernelPopulates()) {
    WARN("this kernel (or emulator) does not populate pages on advice: not "
         "checked");
    return;
  }
  WeightArena A;
  // An untouched chunk, mapped but never written: before the change its
  // pages faulted in only as the conversion wrote them.
  const size_t Page = WeightArena::PageBytes;
  auto *P = static_cast<uint8_t *>(A.allocate(100)); // shares its page
  auto *Q = static_cast<uint8_t *>(A.allocate(40 * Page + 8));
  REQUIRE(P);
  REQUIRE(Q);
  // Q starts at byte 128 and ends 64 bytes into page 40 of the chunk.
  CHECK(residentPages(P, 41 * Page) == 41);
  // Nothing past the allocations is touched: the rest of the chunk stays
  // address space only, unless the kernel backs every mapping with huge
  // pages and so faulted in Q's whole 2 MiB.
  if (!thpAlways())
    CHECK(residentPages(P + 41 * Page, 64 * Page) == 0);
}
