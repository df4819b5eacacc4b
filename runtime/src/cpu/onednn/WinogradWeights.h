// A 3x3 convolution's weights in the Winograd domain, laid out for oneDNN's
// f32 F(2x2, 3x3) kernel. oneDNN's own reorder into that layout (its
// wino_reorder) was measured slow on this machine, growing with the weight
// count to many milliseconds for ResNet's larger layers, which a session
// would pay at every creation (docs/benchmarks.md has the figures). This
// writes the same values in a single pass.
#pragma once

#include <oneapi/dnnl/dnnl_types.h>

#include <cstdint>

namespace kiln::rt {

/// Writes U = G g G^T of every output/input channel pair of the OHWI weight
/// W (O x 3 x 3 x I, f32) into Out (Desc.size bytes) in the layout Desc
/// describes, zeros in the padding channels, with G the F(2x2, 3x3)
/// transform {{1, 0, 0}, {1/2, 1/2, 1/2}, {1/2, -1/2, 1/2}, {0, 0, 1}} and
/// the sums in the order oneDNN's reorder takes them. Returns false, writing
/// nothing, for a layout other than aaOBiOo and aaOio or a desc that does
/// not hold O x I channels.
bool transformWinogradWeights(const dnnl_wino_desc_t &Desc, const float *W,
                              int64_t O, int64_t I, float *Out);

} // namespace kiln::rt
