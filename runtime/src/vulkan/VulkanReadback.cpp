#include "vulkan/VulkanReadback.h"

#include "loader/VulkanPayloadVerifier.h"

#include <cmath>
#include <cstring>

namespace kiln::rt::vk {

namespace {

/// Copies one element, widening a half to a float where the sizes say so.
void element(const uint8_t *Src, size_t SrcSize, uint8_t *Dst, size_t DstSize) {
  if (SrcSize == 2 && DstSize == 4) {
    uint16_t H;
    std::memcpy(&H, Src, 2);
    float F = halfToFloat(H);
    std::memcpy(Dst, &F, 4);
    return;
  }
  std::memcpy(Dst, Src, DstSize);
}

} // namespace

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H >> 15) << 31;
  uint32_t Exp = (H >> 10) & 0x1f;
  uint32_t Mant = H & 0x3ff;
  uint32_t Bits;
  if (Exp == 0x1f) {
    Bits = Sign | 0x7f800000u | (Mant << 13);
  } else if (Exp != 0) {
    Bits = Sign | ((Exp + 112) << 23) | (Mant << 13);
  } else {
    float F = std::ldexp(float(Mant), -24); // subnormal or zero
    std::memcpy(&Bits, &F, 4);
    Bits |= Sign;
  }
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

void placeToHost(const TensorDesc &D, bool Fp16, const uint8_t *Src,
                 uint8_t *Dst) {
  size_t SrcSize = vulkanElementSize(D, Fp16);
  size_t DstSize = dtypeSize(D.DType);
  if (D.Layout != fb::Layout::C4) {
    if (SrcSize == DstSize) {
      std::memcpy(Dst, Src, D.Bytes);
      return;
    }
    for (uint64_t I = 0; I < D.Elements; ++I)
      element(Src + I * SrcSize, SrcSize, Dst + I * DstSize, DstSize);
    return;
  }
  uint64_t N = uint64_t(D.dim(0)), H = uint64_t(D.dim(1)),
           W = uint64_t(D.dim(2)), C = uint64_t(D.dim(3));
  uint64_t C4 = (C + 3) / 4;
  for (uint64_t n = 0; n < N; ++n)
    for (uint64_t h = 0; h < H; ++h)
      for (uint64_t w = 0; w < W; ++w)
        for (uint64_t c = 0; c < C; ++c) {
          uint64_t From = (((n * C4 + c / 4) * H + h) * W + w) * 4 + c % 4;
          uint64_t To = ((n * H + h) * W + w) * C + c;
          element(Src + From * SrcSize, SrcSize, Dst + To * DstSize, DstSize);
        }
}

} // namespace kiln::rt::vk
