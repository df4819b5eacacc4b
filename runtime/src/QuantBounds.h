// The int8 bounds of a fused activation: a real clamp [Min, Max] on a
// quantized output (scale, zero point), as the int8 kernels take it.
// Infinite bounds are the int8 range's ends.
#pragma once

#include "loader/TensorDesc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kiln::rt {

inline int8_t quantizedBound(float V, float Scale, int64_t Zero, int8_t Inf) {
  if (std::isinf(V))
    return Inf;
  float Q = std::nearbyint(V / Scale) + float(Zero);
  return int8_t(std::min(127.0f, std::max(-128.0f, Q)));
}
/// The lowest int8 value of Y (per-tensor quantized) above Min.
inline int8_t quantizedLower(float Min, const TensorDesc &Y) {
  return quantizedBound(Min, Y.Scales[0], Y.ZeroPoints[0], -128);
}
/// The highest int8 value of Y below Max.
inline int8_t quantizedUpper(float Max, const TensorDesc &Y) {
  return quantizedBound(Max, Y.Scales[0], Y.ZeroPoints[0], 127);
}

} // namespace kiln::rt
