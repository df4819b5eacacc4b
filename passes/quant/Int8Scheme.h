// The int8 scheme XNNPACK, TFLite and NNAPI share, in one place:
//   activations: asymmetric int8 per tensor, q in [-128, 127]; the range is
//     widened to hold 0 so that zero is exact (padding, relu):
//       scale = (hi - lo) / 255, zp = clamp(round(-128 - lo / scale))
//   weights: symmetric int8 per output channel, q in [-127, 127], zp = 0:
//       scale[c] = max|w[c]| / 127
//   bias: int32, zp = 0, scale[c] = scale_in * scale_w[c] (float product)
// q = clamp(round_half_even(x / scale) + zp), with x / scale in float, as the
// reference `quantize` kernel computes it.
#pragma once

#include "IR/Type.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace kiln {

constexpr int64_t Int8Min = -128;
constexpr int64_t Int8Max = 127;
constexpr int64_t WeightInt8Max = 127;
/// Scales never go below this (a range narrower than ~1e-9 is zero).
constexpr float MinQuantScale = 0x1p-30f;

struct AffineQuant {
  float Scale = 1.0f;
  int64_t ZeroPoint = 0;
};

/// Asymmetric int8 parameters for the range [Lo, Hi] (widened to hold 0).
AffineQuant activationQuant(double Lo, double Hi);

/// The scale for a symmetric weight slice whose largest magnitude is AbsMax
/// (1 when the slice is all zeros).
float symmetricWeightScale(double AbsMax);

/// round_half_even(X / Scale) + ZeroPoint clamped to [QMin, QMax], computed
/// as the reference kernel does.
int64_t quantizeScalar(float X, float Scale, int64_t ZeroPoint, int64_t QMin,
                       int64_t QMax);
/// quantize then dequantize with activation parameters (fake quantization).
float fakeQuantize(float X, const AffineQuant &Q);

/// Symmetric per-channel quantization of a float weight of static Sizes along
/// Axis (Axis < 0: one scale for the whole tensor).
struct QuantizedWeight {
  std::vector<int8_t> Values;
  std::vector<float> Scales;
};
QuantizedWeight quantizeWeightSymmetric(llvm::ArrayRef<float> W,
                                        llvm::ArrayRef<int64_t> Sizes,
                                        int64_t Axis);

/// Per-axis (or per-tensor) QuantParams for IR types.
QuantParams perTensorParams(const AffineQuant &Q);
QuantParams symmetricParams(llvm::ArrayRef<float> Scales, int64_t Axis);

} // namespace kiln
