#include "cpu/WeightArena.h"

#include "RoundUp.h"
#include "cpu/Prefault.h"

#include <sys/mman.h>

namespace kiln::rt {

WeightArena::~WeightArena() {
  for (const Chunk &C : Chunks)
    munmap(C.Base, C.Size);
}

bool WeightArena::addChunk(size_t AtLeast) {
  const size_t Size = size_t(roundUp(AtLeast > ChunkBytes ? AtLeast : ChunkBytes,
                                     HugePageBytes));
  // Over-reserve by one huge page and trim, so the chunk starts on a huge
  // page boundary: the kernel backs only aligned 2 MiB ranges with one.
  const size_t Reserved = Size + HugePageBytes;
  void *P = mmap(nullptr, Reserved, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return false;
  auto *Start = static_cast<uint8_t *>(P);
  auto *Base = reinterpret_cast<uint8_t *>(
      uintptr_t(roundUp(reinterpret_cast<uintptr_t>(Start), HugePageBytes)));
  if (Base != Start)
    munmap(Start, size_t(Base - Start));
  if (size_t Tail = Reserved - size_t(Base - Start) - Size)
    munmap(Base + Size, Tail);
#ifdef MADV_HUGEPAGE
  // Advice only: where the kernel has no huge pages, 4 KiB pages it is.
  if (HugePages)
    madvise(Base, Size, MADV_HUGEPAGE);
#endif
  Chunks.push_back({Base, Size, 0});
  return true;
}

void *WeightArena::allocate(size_t Bytes) {
  const size_t Aligned = size_t(roundUp(Bytes ? Bytes : 1, 64));
  if (Chunks.empty() || Chunks.back().Size - Chunks.back().Used < Aligned)
    if (!addChunk(Aligned))
      return nullptr;
  Chunk &C = Chunks.back();
  uint8_t *P = C.Base + C.Used;
  C.Used += Aligned;
  Allocated += Aligned;
  prefault(C, P);
  return P;
}

void WeightArena::prefault(const Chunk &C, const uint8_t *From) {
  // The caller writes every byte it asked for at once (a weight conversion):
  // measured to make a portable ResNet-50 session faster to create
  // (docs/benchmarks.md has the figures).
  prefaultForWrite(From, C.Base + C.Used);
}

} // namespace kiln::rt
