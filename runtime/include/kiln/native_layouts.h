/* The one C++ entry of the runtime's static library that the compiler uses:
 * `kiln convert --prepack native` asks which blocked layouts the CPU
 * executor's kernels (oneDNN's) read a model's weights in on this CPU, so
 * that it can store them that way (schema Layout BLOCKED). Not part of the
 * app-facing API: libkiln.so does not export it and `cmake --install` does
 * not ship it. */
#ifndef KILN_NATIVE_LAYOUTS_H
#define KILN_NATIVE_LAYOUTS_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::runtime {

/* A kernel library's blocked layout: the fields of schema BlockedLayout. */
struct NativeLayout {
  std::string Library, Isa;
  std::vector<int32_t> Order;
  std::vector<int64_t> PaddedDims, Strides, InnerBlocks;
  std::vector<int32_t> InnerDims;
};

/* The weight tensor Tensor (an index into the model's tensors) as a kernel
 * reads it: Bytes bytes (padding included) in Layout. Pack converts the
 * weight from the bytes the file stores (Stored) into Out, writing all
 * Bytes; false when the library fails. Callable from any thread, one call at
 * a time. */
struct NativeWeight {
  int32_t Tensor = -1;
  NativeLayout Layout;
  uint64_t Bytes = 0;
  std::function<bool(const uint8_t *Stored, uint8_t *Out)> Pack;
};

/* Verifies the .kiln image [Data, Data + Size) (which must stay valid while
 * Out's Pack functions are used) and creates a single-threaded, layout-only
 * CPU session on it, which converts nothing. Out: its converted weights, in
 * operator order; empty on builds without oneDNN or CPUs where oneDNN runs
 * no convolution. False, with Error, when the runtime rejects the image. */
bool nativeWeightLayouts(const void *Data, size_t Size,
                         std::vector<NativeWeight> &Out, std::string &Error);

} // namespace kiln::runtime

#endif /* KILN_NATIVE_LAYOUTS_H */
