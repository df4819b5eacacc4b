// Requantization parity with PyTorch's quantized kernels (QNNPACK; Debian's
// libtorch has no FBGEMM, so every quantized model runs on QNNPACK there).
//
// A quantized conv or linear requantizes its int32 sums by
//   PyTorch (generate_requantization_scales): M = (w_s * x_s) * (1 / y_s)
//   kiln's int8 kernels (XNNPACK, oneDNN, the reference): M = x_s * w_s / y_s
// both in float, and the two differ by one ulp on about a quarter of the
// channels; a differing M flips a rare output by one level, and a network
// amplifies it. PyTorch quantizes a float bias at run time at
// float(double(w_s) * double(x_s)), multiplying by the float inverse.
// So that a file from a PyTorch model computes PyTorch's integers, the
// TorchScript importer stores, per channel, the weight scale w' (within 64
// ulps of w_s) for which kiln's expression gives PyTorch's M, and the bias
// levels PyTorch computes, read at x_s * w'. Not every M is reachable (one
// ulp of w' can move x * w' / y by two): about half of the channels whose
// multipliers differ are mended, the rest keep w_s. Exact parity on every
// channel needs the runtime to evaluate PyTorch's expression for such
// files.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::ts_import {

/// The requantization multiplier PyTorch's QNNPACK kernels use.
inline float pytorchMultiplier(float WScale, float XScale, float YScale) {
  const float InverseY = 1.0f / YScale;
  return (WScale * XScale) * InverseY;
}

/// The one kiln's int8 kernels compute from the stored scales.
inline float kilnMultiplier(float WScale, float XScale, float YScale) {
  return XScale * WScale / YScale;
}

/// The float nearest WScale (searching 64 ulps each way) whose kiln
/// multiplier is PyTorch's; WScale itself when none is.
inline float weightScaleForParity(float WScale, float XScale, float YScale) {
  const float Want = pytorchMultiplier(WScale, XScale, YScale);
  if (kilnMultiplier(WScale, XScale, YScale) == Want)
    return WScale;
  float Up = WScale, Down = WScale;
  for (int I = 0; I < 64; ++I) {
    Up = std::nextafter(Up, std::numeric_limits<float>::infinity());
    if (kilnMultiplier(Up, XScale, YScale) == Want)
      return Up;
    Down = std::nextafter(Down, 0.0f);
    if (kilnMultiplier(Down, XScale, YScale) == Want)
      return Down;
  }
  return WScale;
}

/// A float bias as PyTorch quantizes it at run time (quantize_val at scale
/// w_s * x_s computed in double), saturated to int32.
inline int32_t pytorchBiasLevel(float Bias, double WScale, double XScale) {
  const float Inverse = 1.0f / float(WScale * XScale);
  double V = std::nearbyint(double(Bias * Inverse));
  if (std::isnan(V))
    V = 0;
  return int32_t(std::clamp<double>(V, std::numeric_limits<int32_t>::min(),
                                    std::numeric_limits<int32_t>::max()));
}

} // namespace kiln::ts_import
