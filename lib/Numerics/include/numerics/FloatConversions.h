// The numerics that the compiler (IR constants, the reference interpreter)
// and the runtime (its reference CAST, widening f16 weights) must agree on
// bit for bit: IEEE half and bfloat16 conversions, the double -> f16 route
// that rounds once, and numpy's saturating float -> integer cast. Header
// only and dependency free, because the runtime depends on nothing of the
// compiler's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kiln::numerics {

inline float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Mant = H & 0x3ff, Bits;
  if (Exp == 0) {
    if (Mant == 0) {
      Bits = Sign;
    } else { // subnormal: renormalize
      Exp = 127 - 15 + 1;
      while (!(Mant & 0x400)) {
        Mant <<= 1;
        --Exp;
      }
      Bits = Sign | (Exp << 23) | ((Mant & 0x3ff) << 13);
    }
  } else if (Exp == 31) {
    Bits = Sign | 0x7f800000 | (Mant << 13);
  } else {
    Bits = Sign | ((Exp + 127 - 15) << 23) | (Mant << 13);
  }
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

/// Round to nearest even; overflow gives infinity; NaN stays a quiet NaN.
inline uint16_t floatToHalf(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  uint16_t Sign = uint16_t((Bits >> 16) & 0x8000);
  uint32_t Exp = (Bits >> 23) & 0xff, Mant = Bits & 0x7fffff;
  if (Exp == 0xff) // inf / nan (keep a quiet nan)
    return Sign | 0x7c00 | (Mant ? 0x200 : 0);
  int32_t E = int32_t(Exp) - 127 + 15;
  if (E >= 31)
    return Sign | 0x7c00; // overflow to inf
  if (E <= 0) {
    if (E < -10)
      return Sign; // underflow to zero
    Mant |= 0x800000;
    uint32_t Shift = uint32_t(14 - E);
    uint32_t Half = Mant >> Shift, Rem = Mant & ((1u << Shift) - 1);
    uint32_t Mid = 1u << (Shift - 1);
    if (Rem > Mid || (Rem == Mid && (Half & 1)))
      ++Half;
    return Sign | uint16_t(Half);
  }
  uint32_t Half = (uint32_t(E) << 10) | (Mant >> 13), Rem = Mant & 0x1fff;
  if (Rem > 0x1000 || (Rem == 0x1000 && (Half & 1)))
    ++Half; // may carry into the exponent, which is the right answer
  return Sign | uint16_t(Half);
}

inline float bf16ToFloat(uint16_t B) {
  uint32_t Bits = uint32_t(B) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

/// Round to nearest even (IR constants); NaN stays a quiet NaN.
inline uint16_t floatToBf16(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  if (std::isnan(F))
    return uint16_t((Bits >> 16) | 0x40);
  uint32_t Rounding = 0x7fff + ((Bits >> 16) & 1);
  return uint16_t((Bits + Rounding) >> 16);
}

/// Truncates the f32 bits, as CAST to bf16 does (ONNX 1.12's conformance
/// data, test_cast_FLOAT_to_BFLOAT16, expects it); NaN stays a NaN even if
/// its payload was in the low bits.
inline uint16_t truncateToBf16(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  uint16_t B = uint16_t(Bits >> 16);
  if (std::isnan(F))
    B |= 0x40;
  return B;
}

/// D rounded to float with round-to-odd, so that rounding again (to f16)
/// gives the correctly rounded result of D: f64 -> f16 rounds once.
inline float toFloatRoundToOdd(double D) {
  float F = float(D);
  if (std::fabs(double(F)) > std::fabs(D))
    F = std::nextafter(F, 0.0f);
  if (double(F) != D) {
    uint32_t Bits;
    std::memcpy(&Bits, &F, 4);
    Bits |= 1;
    std::memcpy(&F, &Bits, 4);
  }
  return F;
}

/// numpy's float -> T: integers truncate toward zero and saturate, NaN
/// becomes 0 (where a C++ cast would be undefined); floating T converts.
template <typename T> T saturateCast(double V) {
  if constexpr (std::is_integral_v<T>) {
    if (V != V)
      return T(0);
    if (V <= double(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (V >= double(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
  }
  return T(V);
}

} // namespace kiln::numerics
