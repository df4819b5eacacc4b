// A runtime tensor (kiln_session_tensor) seen as the IR sees it, so that
// `kiln diff --per-layer` can compare a .kiln's intermediates with a source
// model's: f32 values, channels-last layouts (NHWC) transposed back to
// channels-first (NCHW), int8/uint8 dequantized with the tensor's scales and
// zero points (per tensor or per axis).
#pragma once

#include "IR/Tensor.h"

#include <optional>

struct kiln_tensor_value;

namespace kiln {

/// The f32 channels-first view of V; nullopt for an element type that has no
/// meaningful float view (unknown dtypes, an empty shape mismatch).
std::optional<Tensor> toIrView(const kiln_tensor_value &V);

} // namespace kiln
