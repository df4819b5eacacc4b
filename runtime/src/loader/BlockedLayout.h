// Weights in a kernel library's blocked layout (schema 1.3, Layout BLOCKED):
// `kiln convert --prepack native` stores the f32 convolution weights that
// oneDNN runs in the layout its kernels read on the converting CPU, so that
// a session on that CPU uses them in place from the mapping. Any other
// kernel (XNNPACK, reference, oneDNN on another CPU) gets them back in the
// logical OHWI order from unpackBlocked, once, when the session is created.
#pragma once

#include "Status.h"
#include "loader/TensorDesc.h"

#include <vector>

namespace kiln::rt {

/// Reads T.blocked into D.Blocked and checks it against D's shape: a known
/// library, `order` a permutation of the axes, padded dims that cover the
/// dims and divide by their blocks, at most MaxInnerBlocks blocks on valid
/// dims, and every element (padding included) inside D.StoredBytes, which it
/// sets. Overflow-checked; D.Shape, D.DType and D.Layout are read first.
Status describeBlocked(const fb::Tensor &T, TensorDesc &D);

/// The element offset of the element at tensor index Index (in the tensor's
/// own axis order) in the blocked layout L.
uint64_t blockedOffset(const BlockedDesc &L, const int64_t *Index);

/// D's elements in row-major order of its shape (the logical OHWI layout),
/// followed by ExtraBytes of zeros. D is a BLOCKED constant; Data its bytes.
std::vector<uint8_t> unpackBlocked(const TensorDesc &D, const uint8_t *Data,
                                   size_t ExtraBytes);

} // namespace kiln::rt
