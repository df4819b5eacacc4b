// Fixed-point exp, logistic and tanh with gemmlowp's arithmetic (the
// functions of fixedpoint.h that TFLite's quantized LOGISTIC, TANH and
// SOFTMAX kernels call, and so AOSP's reference NNAPI implementation),
// written from their definitions: a raw int32 value with IB integer bits
// stands for raw / 2^(31 - IB). Every result is Q0.31.
#pragma once

#include "QuantMath.h"

#include <cstdint>
#include <limits>

namespace kiln::nnapi::host::fixedpoint {

constexpr int32_t One = std::numeric_limits<int32_t>::max(); // Q0.31 "1"

/// The product of Q0.31 values (a rounding doubling high multiply).
inline int32_t mul(int32_t A, int32_t B) {
  return saturatingRoundingDoublingHighMul(A, B);
}

/// X * 2^E, rounded (E < 0) or saturated (E > 0).
inline int32_t multiplyByPOT(int32_t X, int E) {
  if (E <= 0)
    return roundingDivideByPOT(X, -E);
  const int32_t Threshold = int32_t((int64_t(1) << (31 - E)) - 1);
  if (X > Threshold)
    return std::numeric_limits<int32_t>::max();
  if (X < -Threshold)
    return std::numeric_limits<int32_t>::min();
  return int32_t(uint32_t(X) << E);
}

/// (A + B) / 2, rounded half away from zero.
inline int32_t roundingHalfSum(int32_t A, int32_t B) {
  const int64_t S = int64_t(A) + int64_t(B);
  return int32_t((S + (S >= 0 ? 1 : -1)) / 2);
}

/// exp(A) for A in [-1/4, 0): exp(-1/8) times a Taylor series in A + 1/8.
inline int32_t expOnQuarterInterval(int32_t A) {
  const int32_t ExpMinusOneEighth = 1895147668;
  const int32_t OneThird = 715827883;
  const int32_t X = A + (1 << 28);
  const int32_t X2 = mul(X, X), X3 = mul(X2, X), X4 = mul(X2, X2);
  const int32_t X4Over4 = roundingDivideByPOT(X4, 2);
  const int32_t Tail =
      roundingDivideByPOT(mul(X4Over4 + X3, OneThird) + X2, 1);
  return ExpMinusOneEighth + mul(ExpMinusOneEighth, X + Tail);
}

/// exp(A) for A <= 0 with IB integer bits: exp of A's residue in
/// [-1/4, 0), times exp(-2^k) for each bit k of the rest.
inline int32_t expOnNegativeValues(int32_t A, int IB) {
  const int FB = 31 - IB;
  const int32_t Quarter = int32_t(1) << (FB - 2);
  const int32_t Residue = (A & (Quarter - 1)) - Quarter;
  int32_t R = expOnQuarterInterval(multiplyByPOT(Residue, IB));
  const int32_t Rest = Residue - A;
  static const struct {
    int Exponent;
    int32_t Multiplier; // exp(-2^Exponent) in Q0.31
  } Steps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084},
               {1, 290630308},   {2, 39332535},    {3, 720401},
               {4, 242}};
  for (const auto &S : Steps)
    if (IB > S.Exponent && (Rest & (int32_t(1) << (FB + S.Exponent))))
      R = mul(R, S.Multiplier);
  if (IB > 5 && A < -(int32_t(1) << (FB + 5)))
    R = 0;
  return A == 0 ? One : R;
}

/// The Newton-Raphson iterate of 1 / (1 + A) / 2 for A in [0, 1), Q2.29.
inline int32_t halfReciprocalIterate(int32_t A) {
  const int32_t HalfDenominator = roundingHalfSum(A, One);
  const int32_t FortyEightOverSeventeen = 1515870810;       // Q2.29
  const int32_t MinusThirtyTwoOverSeventeen = -1010580540; // Q2.29
  int32_t X = FortyEightOverSeventeen +
              mul(HalfDenominator, MinusThirtyTwoOverSeventeen);
  for (int I = 0; I < 3; ++I) {
    const int32_t OneMinusDX = (1 << 29) - mul(HalfDenominator, X);
    X = X + multiplyByPOT(mul(X, OneMinusDX), 2);
  }
  return X;
}

/// 1 / (1 + A) for A in [0, 1).
inline int32_t oneOverOnePlusX(int32_t A) {
  return multiplyByPOT(halfReciprocalIterate(A), 1);
}

/// (1 - A) / (1 + A) for A in [0, 1).
inline int32_t oneMinusXOverOnePlusX(int32_t A) {
  return multiplyByPOT(halfReciprocalIterate(A) - (1 << 29), 2);
}

/// tanh(A), A with IB integer bits: -tanh of -|A| as (1 - e) / (1 + e)
/// with e = exp(2 * -|A|) (the same raw value read with IB + 1 bits).
inline int32_t tanh(int32_t A, int IB) {
  const int32_t NegAbs = A < 0 ? A : -A;
  const int32_t T = oneMinusXOverOnePlusX(expOnNegativeValues(NegAbs, IB + 1));
  return A == 0 ? 0 : A < 0 ? -T : T;
}

/// logistic(A), A with IB integer bits: 1 / (1 + exp(-|A|)), mirrored.
inline int32_t logistic(int32_t A, int IB) {
  const int32_t Abs = A > 0 ? A : -A;
  const int32_t Positive = oneOverOnePlusX(expOnNegativeValues(-Abs, IB));
  return A == 0 ? (1 << 30) : A > 0 ? Positive : One - Positive;
}

} // namespace kiln::nnapi::host::fixedpoint
