// Faulting in memory the caller is about to write whole (a converted or
// packed weight) with one call, rather than one page fault per 4 KiB page:
// in a virtual machine each fault exits to the host.
#pragma once

#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln::rt {

/// Prefaults the pages (of the system's size: 4, 16 or 64 KiB on arm64) from
/// the first page boundary at or after Begin up to
/// the end of the page holding End - 1 (a first page shared with memory
/// before Begin was faulted by whoever wrote it). Advice only: kernels
/// before Linux 5.14 refuse it, and the pages then fault in as written.
inline void prefaultForWrite(const void *Begin, const void *End) {
#ifdef MADV_POPULATE_WRITE
  static const uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t Start = (uintptr_t(Begin) + Page - 1) / Page * Page;
  const uintptr_t Stop = (uintptr_t(End) + Page - 1) / Page * Page;
  if (Stop > Start)
    madvise(reinterpret_cast<void *>(Start), Stop - Start, MADV_POPULATE_WRITE);
#else
  (void)Begin;
  (void)End;
#endif
}

} // namespace kiln::rt
