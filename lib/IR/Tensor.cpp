#include "IR/Tensor.h"

#include <cmath>

namespace kiln {

const uint8_t *Buffer::emptyData() {
  alignas(64) static uint8_t Empty[64] = {};
  return Empty;
}

Buffer Buffer::own(std::vector<uint8_t> Bytes) {
  auto Storage = std::make_shared<std::vector<uint8_t>>(std::move(Bytes));
  Buffer B;
  if (!Storage->empty())
    B.Data = Storage->data();
  B.Size = Storage->size();
  B.Owner = std::move(Storage);
  return B;
}

Buffer Buffer::copy(llvm::ArrayRef<uint8_t> Bytes) {
  return own(std::vector<uint8_t>(Bytes.begin(), Bytes.end()));
}

Buffer Buffer::alias(std::shared_ptr<const void> Owner, const uint8_t *Data,
                     size_t Size) {
  Buffer B;
  B.Owner = std::move(Owner);
  if (Data)
    B.Data = Data;
  B.Size = Size;
  B.Aliased = true;
  return B;
}

double Tensor::asDouble(int64_t I) const {
  switch (Type.Elem) {
  case ElementType::F32: return at<float>(I);
  case ElementType::F16: return halfToFloat(at<uint16_t>(I));
  case ElementType::BF16: return bf16ToFloat(at<uint16_t>(I));
  case ElementType::F64: return at<double>(I);
  case ElementType::I64: return double(at<int64_t>(I));
  case ElementType::I32: return at<int32_t>(I);
  case ElementType::I16: return at<int16_t>(I);
  case ElementType::I8: return at<int8_t>(I);
  case ElementType::U64: return double(at<uint64_t>(I));
  case ElementType::U32: return at<uint32_t>(I);
  case ElementType::U16: return at<uint16_t>(I);
  case ElementType::U8: return at<uint8_t>(I);
  case ElementType::Bool: return at<uint8_t>(I) ? 1.0 : 0.0;
  }
  return 0;
}

int64_t Tensor::asInt(int64_t I) const {
  switch (Type.Elem) {
  case ElementType::I64: return at<int64_t>(I);
  case ElementType::I32: return at<int32_t>(I);
  case ElementType::I16: return at<int16_t>(I);
  case ElementType::I8: return at<int8_t>(I);
  case ElementType::U64: return int64_t(at<uint64_t>(I));
  case ElementType::U32: return at<uint32_t>(I);
  case ElementType::U16: return at<uint16_t>(I);
  case ElementType::U8: return at<uint8_t>(I);
  case ElementType::Bool: return at<uint8_t>(I) ? 1 : 0;
  default: {
    double D = asDouble(I);
    if (!(D == D) || D >= 9.2e18 || D <= -9.2e18)
      return 0;
    return int64_t(D);
  }
  }
}

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f;
  uint32_t Mant = H & 0x3ff;
  uint32_t Bits;
  if (Exp == 0) {
    if (Mant == 0) {
      Bits = Sign;
    } else { // subnormal: renormalize
      Exp = 127 - 15 + 1;
      while (!(Mant & 0x400)) {
        Mant <<= 1;
        --Exp;
      }
      Mant &= 0x3ff;
      Bits = Sign | (Exp << 23) | (Mant << 13);
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
  uint32_t Exp = (Bits >> 23) & 0xff;
  uint32_t Mant = Bits & 0x7fffff;
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
    uint32_t Half = Mant >> Shift;
    uint32_t Rem = Mant & ((1u << Shift) - 1);
    uint32_t Mid = 1u << (Shift - 1);
    if (Rem > Mid || (Rem == Mid && (Half & 1)))
      ++Half;
    return Sign | uint16_t(Half);
  }
  uint32_t Half = (uint32_t(E) << 10) | (Mant >> 13);
  uint32_t Rem = Mant & 0x1fff;
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

uint16_t floatToBf16(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  if (std::isnan(F))
    return uint16_t((Bits >> 16) | 0x40);
  uint32_t Rounding = 0x7fff + ((Bits >> 16) & 1);
  return uint16_t((Bits + Rounding) >> 16);
}

} // namespace kiln

namespace kiln {

Tensor Tensor::scalar(ElementType E, double V) {
  std::vector<uint8_t> Bytes(elementSize(E));
  auto Put = [&](auto X) { std::memcpy(Bytes.data(), &X, sizeof(X)); };
  switch (E) {
  case ElementType::F32: Put(float(V)); break;
  case ElementType::F64: Put(V); break;
  case ElementType::F16: Put(floatToHalf(float(V))); break;
  case ElementType::BF16: Put(floatToBf16(float(V))); break;
  case ElementType::I64: Put(int64_t(V)); break;
  case ElementType::I32: Put(int32_t(V)); break;
  case ElementType::I16: Put(int16_t(V)); break;
  case ElementType::I8: Put(int8_t(V)); break;
  case ElementType::U64: Put(uint64_t(V)); break;
  case ElementType::U32: Put(uint32_t(V)); break;
  case ElementType::U16: Put(uint16_t(V)); break;
  case ElementType::U8: Put(uint8_t(V)); break;
  case ElementType::Bool: Put(uint8_t(V != 0)); break;
  }
  return Tensor(TensorType(E, {}), Buffer::own(std::move(Bytes)));
}

} // namespace kiln
