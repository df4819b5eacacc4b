// After a kernel library packs a weight into memory of its own, the file's
// pages of that weight are dead weight: the session drops them
// (madvise(MADV_DONTNEED) on the mapping, ModelBytes::releasePages), so
// that a model whose layers XNNPACK packs is resident once, not twice.
// A constant is released when every operator that reads it has a kernel
// that copied it (Kernel::copiedInputs), as soon as the last of them is
// created, so that creating a session never holds both copies of more than
// one layer. Weights used in place (oneDNN's native layouts, the reference
// kernels, XNNPACK's elementwise operators) stay mapped.
#pragma once

#include "cpu/Kernel.h"
#include "loader/LoadedModel.h"

#include <cstdint>
#include <vector>

namespace kiln::rt {

class SegmentRelease {
public:
  /// Counts the readers of each constant of M whose bytes are Data[T].
  SegmentRelease(const LoadedModel &M, const std::vector<uint8_t *> &Data);

  /// Operator Op's kernel K was created (or kept from before a resize).
  void created(size_t Op, const Kernel &K);

  /// Bytes of the mapping dropped (whole pages), and of the constants
  /// still read in place (from the mapping or a copy of the file).
  uint64_t releasedBytes() const { return Released; }
  uint64_t mappedBytes() const;

private:
  const LoadedModel &M;
  const std::vector<uint8_t *> &Data;
  /// Per tensor: operators that read it, those whose kernel copied it, and
  /// whether one reads it in place.
  std::vector<uint32_t> Readers, Copied;
  std::vector<char> ReadInPlace, Done;
  uint64_t Released = 0;
};

} // namespace kiln::rt
