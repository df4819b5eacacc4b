// The host NNAPI device: quantized LOGISTIC, TANH, SOFTMAX and HARD_SWISH
// in fixed point, as AOSP's reference implementation computes them
// (Activation.cpp and Softmax.cpp, with TFLite's kernels and gemmlowp's
// functions; FixedPointFunctions.h). uint8 LOGISTIC and TANH take TFLite's
// optimized kernels, which saturate strictly outside the input radius;
// the int8 ones take the reference integer kernels, which saturate at it.
#include "ConvCommon.h"
#include "FixedPointFunctions.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace {

namespace fp = kiln::nnapi::host::fixedpoint;

/// QuantizeMultiplierGreaterThanOne: D = Multiplier * 2^(LeftShift - 31).
struct MultiplierAboveOne {
  int32_t Multiplier = 0;
  int LeftShift = 0;
};

MultiplierAboveOne multiplierAboveOne(double D) {
  if (!(D > 1))
    throw ComputeFailure("the input scale gives a multiplier of " +
                         std::to_string(D) + " (must exceed 1)");
  MultiplierAboveOne M;
  const double Fraction = std::frexp(D, &M.LeftShift);
  int64_t Q = int64_t(std::round(Fraction * double(int64_t(1) << 31)));
  if (Q == (int64_t(1) << 31)) {
    Q /= 2;
    ++M.LeftShift;
  }
  M.Multiplier = int32_t(Q);
  return M;
}

/// CalculateInputRadius: the largest |x| whose rescaled value fits IB
/// integer bits.
int32_t inputRadius(int IB, int LeftShift) {
  const double Max = double((1 << IB) - 1) * double(int64_t(1) << (31 - IB)) /
                     double(int64_t(1) << LeftShift);
  return int32_t(std::floor(Max));
}

/// X * Multiplier * 2^LeftShift as a raw fixed-point value. A left shift
/// of 32 or more (an input scale of 16 or more) leaves a radius of 0: only
/// X = 0 gets here then.
int32_t rescale(int32_t X, const MultiplierAboveOne &M) {
  if (M.LeftShift >= 32)
    return 0;
  return fp::mul(int32_t(uint32_t(X) << M.LeftShift), M.Multiplier);
}

void logisticTanhOp(const OpContext &C) {
  const bool Tanh = C.Op.Type == TANH;
  const Operand &In = C.in(0), &Out = C.out();
  const bool U8 = In.Type == TENSOR_QUANT8_ASYMM;
  const int InputIntegerBits = 4;
  const MultiplierAboveOne M =
      multiplierAboveOne(double(In.Scale) * double(1 << (31 - InputIntegerBits)));
  const int32_t Radius = inputRadius(InputIntegerBits, M.LeftShift);
  int32_t Lo, Hi;
  quantTypeRange(Out.Type, Lo, Hi);
  for (size_t K = 0, N = Out.elementCount(); K < N; ++K) {
    const int32_t X = qget(In, C.inData(0), K) - In.ZeroPoint;
    int32_t Y;
    if (U8 ? X < -Radius : X <= -Radius) {
      Y = Lo;
    } else if (U8 ? X > Radius : X >= Radius) {
      Y = Hi;
    } else if (Tanh) {
      // Q0.31 to 1/128 steps: a division by 2^24; uint8 adds its 128.
      Y = roundingDivideByPOT(fp::tanh(rescale(X, M), InputIntegerBits), 24) +
          (U8 ? 128 : 0);
    } else {
      // Q0.31 to 1/256 steps: a division by 2^23; int8 subtracts 128.
      Y = roundingDivideByPOT(fp::logistic(rescale(X, M), InputIntegerBits),
                              23) -
          (U8 ? 0 : 128);
    }
    qset(Out, C.outData(), K, std::clamp(Y, Lo, Hi));
  }
}

/// AOSP's softmaxQuant8Impl: exp of each difference from the row's
/// maximum in fixed point (Q5.26 in), summed with 12 integer bits, scaled
/// by the sum's reciprocal into 1/256 steps.
void softmaxOp(const OpContext &C) {
  const Operand &In = C.in(0), &Out = C.out();
  const float Beta = C.f32(1);
  const AxisSplit S = splitAtAxis(In.Dims, C.inputCount() == 3 ? C.i32(2) : -1);
  const size_t Outer = S.Outer, Inner = S.Inner, Depth = S.Depth;
  const int ScaledDiffIntegerBits = 5, AccumulationIntegerBits = 12;
  const double Real =
      std::min(double(Beta) * double(In.Scale) *
                   double(1 << (31 - ScaledDiffIntegerBits)),
               double(std::numeric_limits<int32_t>::max()));
  const MultiplierAboveOne M = multiplierAboveOne(Real);
  const int32_t DiffMin = -inputRadius(ScaledDiffIntegerBits, M.LeftShift);
  const bool U8 = In.Type == TENSOR_QUANT8_ASYMM;
  int32_t Lo, Hi;
  quantTypeRange(Out.Type, Lo, Hi);
  const uint8_t *X = C.inData(0);
  for (size_t A = 0; A < Outer; ++A)
    for (size_t B = 0; B < Inner; ++B) {
      auto At = [&](size_t I) { return (A * Depth + I) * Inner + B; };
      int32_t Max = Lo;
      for (size_t I = 0; I < Depth; ++I)
        Max = std::max(Max, qget(In, X, At(I)));
      auto Exp = [&](int32_t Diff) {
        return fp::expOnNegativeValues(rescale(Diff, M), ScaledDiffIntegerBits);
      };
      int32_t Sum = 0;
      for (size_t I = 0; I < Depth; ++I) {
        const int32_t Diff = qget(In, X, At(I)) - Max;
        if (Diff >= DiffMin) // int32 addition that wraps, as AOSP's
          Sum = int32_t(uint32_t(Sum) +
                        uint32_t(roundingDivideByPOT(Exp(Diff),
                                                     AccumulationIntegerBits)));
      }
      // The sum as 1 + x with x in [0, 1), and its bits above one. A sum
      // that wrapped to 0 (8192 maxima in a row) has no answer in AOSP.
      if (Sum == 0)
        throw ComputeFailure("the softmax sum overflows int32 (a row of " +
                             std::to_string(Depth) + ")");
      const int Headroom = __builtin_clz(uint32_t(Sum));
      const int BitsOverUnit = AccumulationIntegerBits - Headroom;
      const int32_t SumMinusOne =
          int32_t((uint32_t(Sum) << Headroom) - (uint32_t(1) << 31));
      const int32_t Reciprocal = fp::oneOverOnePlusX(SumMinusOne);
      for (size_t I = 0; I < Depth; ++I) {
        const int32_t Diff = qget(In, X, At(I)) - Max;
        int32_t Y = Lo;
        if (Diff >= DiffMin)
          Y = roundingDivideByPOT(fp::mul(Reciprocal, Exp(Diff)),
                                  BitsOverUnit + 31 - 8) -
              (U8 ? 0 : 128);
        qset(Out, C.outData(), At(I), std::clamp(Y, Lo, Hi));
      }
    }
}

// int16 fixed point for HARD_SWISH (TFLite's reference HardSwish).
int16_t saturate16(int32_t X) {
  return int16_t(std::clamp<int32_t>(X, -32768, 32767));
}
/// The rounding doubling high multiply of int16 values.
int16_t roundingHighMul16(int16_t A, int16_t B) {
  if (A == B && A == -32768)
    return 32767;
  const int32_t AB = int32_t(A) * int32_t(B);
  return int16_t((AB + (AB >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15));
}
/// The same, truncating (gemmlowp's SaturatingDoublingHighMul).
int16_t truncatingHighMul16(int16_t A, int16_t B) {
  if (A == B && A == -32768)
    return 32767;
  return int16_t((int32_t(A) * int32_t(B)) / (1 << 15));
}
int16_t roundingDivideByPOT16(int16_t X, int E) {
  return int16_t(roundingDivideByPOT(X, E));
}
/// An int32 Q0.31 multiplier rounded to Q0.15.
int16_t downscaleMultiplier(int32_t M) {
  if (M >= std::numeric_limits<int32_t>::max() - (1 << 15))
    return 32767;
  return int16_t((M + (1 << 15)) >> 16);
}

/// x * relu6(x + 3) / 6 on int16 values at 1/128 of the input's scale:
/// the "reluish" factor relu6(x + 3) / 6 in [0, 1) as Q0.15, times x
/// rescaled to the output.
void hardSwishOp(const OpContext &C) {
  const Operand &In = C.in(0), &Out = C.out();
  const float HiresScale = (1.0f / 128.0f) * In.Scale;
  const float ReluishScale = 3.0f / 32768.0f;
  int32_t OutM32, ReluM32;
  int OutExp, ReluExp;
  quantizeMultiplier(double(HiresScale / Out.Scale), OutM32, OutExp);
  quantizeMultiplier(double(HiresScale / ReluishScale), ReluM32, ReluExp);
  if (OutExp > 0)
    throw ComputeFailure("the output scale is below 1/128 of the input's");
  const int16_t OutM = downscaleMultiplier(OutM32);
  const int16_t ReluM = downscaleMultiplier(ReluM32);
  int32_t Lo, Hi;
  quantTypeRange(Out.Type, Lo, Hi);
  for (size_t K = 0, N = Out.elementCount(); K < N; ++K) {
    const int16_t X = int16_t(qget(In, C.inData(0), K) - In.ZeroPoint);
    const int16_t Hires = int16_t(X * 128);
    const int16_t PreshiftOut = roundingHighMul16(Hires, OutM);
    int16_t Reluish = Hires;
    if (ReluExp > 0)
      Reluish = saturate16(int32_t(Reluish) * (1 << (ReluExp - 1)));
    Reluish = roundingHighMul16(Reluish, ReluM);
    if (ReluExp > 0)
      Reluish = saturate16(int32_t(Reluish) * 2);
    if (ReluExp < 0)
      Reluish = roundingDivideByPOT16(Reluish, -ReluExp);
    Reluish = int16_t((int32_t(Reluish) + (1 << 15)) >> 1);
    const int16_t Preshift = truncatingHighMul16(Reluish, PreshiftOut);
    const int32_t Y = roundingDivideByPOT16(Preshift, -OutExp) + Out.ZeroPoint;
    qset(Out, C.outData(), K, std::clamp(Y, Lo, Hi));
  }
}

} // namespace

namespace kiln::nnapi::host {

bool runQuantActivation(const OpContext &C) {
  switch (C.Op.Type) {
  case LOGISTIC:
  case TANH:
    logisticTanhOp(C);
    return true;
  case SOFTMAX:
    softmaxOp(C);
    return true;
  case HARD_SWISH:
    hardSwishOp(C);
    return true;
  default:
    return false;
  }
}

} // namespace kiln::nnapi::host
