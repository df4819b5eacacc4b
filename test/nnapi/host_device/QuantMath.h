// Fixed-point helpers with gemmlowp / TFLite reference semantics, which is
// what NNAPI's reference driver computes quantized operations with.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::nnapi::host {

/// The high 32 bits of 2*A*B, rounded to nearest; saturates the one
/// overflowing case (A == B == INT32_MIN).
inline int32_t saturatingRoundingDoublingHighMul(int32_t A, int32_t B) {
  if (A == B && A == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t AB = int64_t(A) * int64_t(B);
  int32_t Nudge = AB >= 0 ? (1 << 30) : (1 - (1 << 30));
  return int32_t((AB + Nudge) / (int64_t(1) << 31));
}

/// X / 2^Exponent, rounded to nearest with ties away from zero.
inline int32_t roundingDivideByPOT(int32_t X, int Exponent) {
  if (Exponent <= 0)
    return X;
  const int32_t Mask = int32_t((int64_t(1) << Exponent) - 1);
  const int32_t Remainder = X & Mask;
  const int32_t Threshold = (Mask >> 1) + (X < 0 ? 1 : 0);
  return (X >> Exponent) + (Remainder > Threshold ? 1 : 0);
}

/// A real multiplier M as Q0.31 Quantized * 2^Shift.
inline void quantizeMultiplier(double M, int32_t &Quantized, int &Shift) {
  if (M == 0) {
    Quantized = 0;
    Shift = 0;
    return;
  }
  const double Fraction = std::frexp(M, &Shift);
  int64_t Q = int64_t(std::round(Fraction * double(int64_t(1) << 31)));
  if (Q == (int64_t(1) << 31)) {
    Q /= 2;
    ++Shift;
  }
  if (Shift < -31) {
    Shift = 0;
    Q = 0;
  }
  // TFLite's QuantizeMultiplier saturates a multiplier of 2^31 or more the
  // same way (a lying file's scales can ask for 2^117): a left shift of 32
  // or more would be undefined.
  if (Shift > 30) {
    Shift = 30;
    Q = std::numeric_limits<int32_t>::max();
  }
  Quantized = int32_t(Q);
}

/// X * (Quantized * 2^Shift) with TFLite's rounding.
inline int32_t multiplyByQuantizedMultiplier(int32_t X, int32_t Quantized,
                                             int Shift) {
  const int Left = Shift > 0 ? Shift : 0;
  const int Right = Shift > 0 ? 0 : -Shift;
  // X << Left wraps as TFLite's int32 multiply would (its callers keep it
  // in range).
  const int32_t Shifted = int32_t(uint32_t(X) << Left);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(Shifted, Quantized),
                             Right);
}

/// A real multiplier applied with quantizeMultiplier +
/// multiplyByQuantizedMultiplier.
struct Requantizer {
  int32_t Quantized = 0;
  int Shift = 0;
  explicit Requantizer(double M = 0) { quantizeMultiplier(M, Quantized, Shift); }
  int32_t operator()(int32_t X) const {
    return multiplyByQuantizedMultiplier(X, Quantized, Shift);
  }
  /// Acc requantized, plus zero point Zp. Valid models keep both steps in
  /// int32 as TFLite does; a lying file's biases and scales may not, so the
  /// accumulator and the sum saturate instead of overflowing.
  int32_t withZeroPoint(int64_t Acc, int32_t Zp) const {
    return saturate32(int64_t((*this)(saturate32(Acc))) + Zp);
  }
  static int32_t saturate32(int64_t V) {
    return int32_t(std::min<int64_t>(
        std::max<int64_t>(V, std::numeric_limits<int32_t>::min()),
        std::numeric_limits<int32_t>::max()));
  }
};

/// Rounds X to the nearest float16 value (ties to even), as an fp16 driver
/// would store it; overflow goes to infinity. Exact for any double X: a
/// sum of fp16 values and fp16 products rounds once, as an fp16 fused
/// multiply-add.
inline float roundToHalf(double X) {
  if (!std::isfinite(X) || X == 0)
    return float(X);
  const double A = std::fabs(X);
  if (A >= 65520.0)
    return std::copysign(std::numeric_limits<float>::infinity(), float(X));
  double Quantum;
  if (A < 6.103515625e-05) { // float16 subnormals: steps of 2^-24
    Quantum = 5.9604644775390625e-08;
  } else {
    int Exp;
    std::frexp(A, &Exp); // A = m * 2^Exp, m in [0.5, 1): 11 significant bits
    Quantum = std::ldexp(1.0, Exp - 11);
  }
  return float(std::copysign(std::nearbyint(A / Quantum) * Quantum, X));
}

} // namespace kiln::nnapi::host
