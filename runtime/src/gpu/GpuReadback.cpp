#include "gpu/GpuReadback.h"

#include "gpu/GpuBuffersVerifier.h"

#include "numerics/FloatConversions.h"

#include <cstring>

namespace kiln::rt {

namespace {

/// Copies one element, widening a half to a float where the sizes say so.
void element(const uint8_t *Src, size_t SrcSize, uint8_t *Dst, size_t DstSize) {
  if (SrcSize == 2 && DstSize == 4) {
    uint16_t H;
    std::memcpy(&H, Src, 2);
    float F = numerics::halfToFloat(H);
    std::memcpy(Dst, &F, 4);
    return;
  }
  std::memcpy(Dst, Src, DstSize);
}

} // namespace

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

} // namespace kiln::rt
