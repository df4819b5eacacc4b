#include "cpu/reference/HalfFloat.h"

#include <cmath>
#include <cstring>

namespace kiln::rt::ref {

float halfToFloat(uint16_t H) {
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

uint16_t floatToHalf(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  uint16_t Sign = uint16_t((Bits >> 16) & 0x8000);
  uint32_t Exp = (Bits >> 23) & 0xff, Mant = Bits & 0x7fffff;
  if (Exp == 0xff)
    return Sign | 0x7c00 | (Mant ? 0x200 : 0);
  int32_t E = int32_t(Exp) - 127 + 15;
  if (E >= 31)
    return Sign | 0x7c00;
  if (E <= 0) {
    if (E < -10)
      return Sign;
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

float bf16ToFloat(uint16_t B) {
  uint32_t Bits = uint32_t(B) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

uint16_t truncateToBf16(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  uint16_t B = uint16_t(Bits >> 16);
  if (std::isnan(F))
    B |= 0x40;
  return B;
}

} // namespace kiln::rt::ref
