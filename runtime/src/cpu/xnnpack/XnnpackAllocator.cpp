#include "cpu/xnnpack/XnnpackAllocator.h"

#include "cpu/Prefault.h"

#include <xnnpack.h>

#include <cstdlib>

namespace kiln::rt {

namespace {

/// Blocks from this size on are prefaulted: below it, the faults are few and
/// the block may come from pages the heap already has.
constexpr size_t PrefaultBytes = size_t(1) << 20;

void *allocate(void *, size_t Size) { return std::malloc(Size); }

void *reallocate(void *, void *P, size_t Size) { return std::realloc(P, Size); }

void deallocate(void *, void *P) { std::free(P); }

void *alignedAllocate(void *, size_t Alignment, size_t Size) {
  void *P = nullptr;
  if (Alignment < sizeof(void *))
    Alignment = sizeof(void *);
  if (posix_memalign(&P, Alignment, Size ? Size : 1) != 0)
    return nullptr;
  if (Size >= PrefaultBytes)
    prefaultForWrite(P, static_cast<char *>(P) + Size);
  return P;
}

void alignedDeallocate(void *, void *P) { std::free(P); }

} // namespace

const xnn_allocator *xnnpackAllocator() {
  static const xnn_allocator A = {nullptr,         allocate,
                                  reallocate,      deallocate,
                                  alignedAllocate, alignedDeallocate};
  return &A;
}

} // namespace kiln::rt
