// Memory for the weights a session's kernels convert when it is created
// (oneDNN's blocked and Winograd layouts): bump-allocated from large chunks
// of anonymous memory, which may ask the kernel for transparent huge pages.
//
// A run streams every weight once, and ResNet-50's 100 MB of them outgrow
// the caches, so each 4 KiB page of them costs a TLB miss and a page walk
// per run. On 2 MiB pages, ResNet-50 at one thread was measured slightly
// faster in most alternating `kiln bench` pairs (bench/compare.py's medians
// show it less clearly). Sessions ask for them only when told to
// (SessionOptions::HugePageWeights): in a virtual machine with free page
// reporting, each fresh huge page faults to the host, which was measured to
// make ResNet-50's session several times slower to create.
// docs/benchmarks.md has the figures. Chunks, not one allocation per
// weight: a huge page is faulted in whole, so rounding every weight up to
// 2 MiB would waste about 1 MiB of memory per weight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::rt {

class WeightArena {
public:
  WeightArena() = default;
  ~WeightArena();
  WeightArena(const WeightArena &) = delete;
  WeightArena &operator=(const WeightArena &) = delete;

  /// Whether the chunks mapped from now on ask for huge pages (default:
  /// no; a session sets it from SessionOptions::HugePageWeights).
  void setHugePages(bool On) { HugePages = On; }

  /// An arena that holds no weights: the kernels created with it choose the
  /// layouts they convert their weights to but convert none, and cannot run
  /// (SessionOptions::LayoutOnly). allocate() is not called on it.
  void setLayoutOnly(bool On) { LayoutOnly = On; }
  bool layoutOnly() const { return LayoutOnly; }

  /// Bytes of zero-filled memory, 64-byte aligned, that live as long as the
  /// arena; null when the system has no memory left for them. Their pages
  /// are faulted in at once, since the caller is about to write them all.
  void *allocate(size_t Bytes);
  /// Bytes handed out so far, alignment included.
  uint64_t bytes() const { return Allocated; }
  /// The chunks mapped so far.
  size_t chunks() const { return Chunks.size(); }

  /// Address space reserved per chunk, unless one weight needs more; what
  /// is never touched is never backed by memory.
  static constexpr size_t ChunkBytes = size_t(64) << 20;
  static constexpr size_t HugePageBytes = size_t(2) << 20;
  static constexpr size_t PageBytes = size_t(4) << 10;

private:
  struct Chunk {
    uint8_t *Base;
    size_t Size;
    size_t Used;
  };
  bool addChunk(size_t AtLeast);
  void prefault(const Chunk &C, const uint8_t *From);

  std::vector<Chunk> Chunks;
  uint64_t Allocated = 0;
  bool HugePages = false;
  bool LayoutOnly = false;
};

} // namespace kiln::rt
