// The allocator kiln gives XNNPACK (xnn_initialize): the C library's, except
// that a large aligned block (a layer's packed weights) has its pages faulted
// in with one call before XNNPACK writes it, instead of one page fault per
// 4 KiB page. Packing a 2.7 GB MLP's weights took 655,000 faults, and in a
// virtual machine each fault exits to the host: most of its 14 s session.
#pragma once

struct xnn_allocator;

namespace kiln::rt {

const xnn_allocator *xnnpackAllocator();

} // namespace kiln::rt
