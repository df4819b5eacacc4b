// A runtime tensor (kiln_session_tensor) seen as the IR sees it, so that
// `kiln diff --per-layer` can compare a .kiln's intermediates with a source
// model's: f32 values, channels-last layouts (NHWC) transposed back to
// channels-first (NCHW), int8/uint8 dequantized with the tensor's scales and
// zero points (per tensor or per axis). And the way back, so that
// `kiln diff --isolated` can hand a .kiln's operators the source's values.
#pragma once

#include "IR/Tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

struct kiln_tensor_value;

namespace kiln {

/// The f32 channels-first view of V; nullopt for an element type that has no
/// meaningful float view (unknown dtypes, an empty shape mismatch).
std::optional<Tensor> toIrView(const kiln_tensor_value &V);

/// Ir (f32, in the shape toIrView(V) gives) as bytes for V's tensor: NCHW
/// transposed to V's NHWC, int8/uint8 quantized with V's scales and zero
/// points (round half to even, saturated). nullopt when the shapes differ or
/// V's type is not f32, int8 or uint8.
std::optional<std::vector<uint8_t>> fromIrView(const Tensor &Ir,
                                               const kiln_tensor_value &V);

} // namespace kiln
