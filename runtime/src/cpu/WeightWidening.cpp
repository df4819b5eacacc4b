// Widening of the weights a float operator keeps narrow in the file (schema
// 1.2): F16 constants, and I8/I32 constants with quantization parameters
// (real = (q - zero point) * scale, per tensor or per slice of an axis).
// The session widens each such constant once, at load, into an f32 copy that
// the kernel (and XNNPACK's weight packing) then reads.
#include "cpu/WeightWidening.h"

#include "numerics/FloatConversions.h"

namespace kiln::rt {

bool needsWidening(const KernelArgs &A, size_t Input) {
  using K = fb::OpKind;
  if (A.Op.kind() != K::CONV_2D && A.Op.kind() != K::DECONV_2D &&
      A.Op.kind() != K::FULLY_CONNECTED)
    return false;
  if (Input >= A.In.size() || !A.In[Input].present() || Input == 0)
    return false;
  if (A.In[0].Desc->DType != fb::DType::F32)
    return false; // an int8 operator reads its int8 weights as they are
  return A.In[Input].Desc->DType != fb::DType::F32;
}

std::vector<float> widenToF32(const TensorDesc &D, const uint8_t *Data,
                              size_t ExtraBytes) {
  std::vector<float> Out(size_t(D.Elements) + (ExtraBytes + 3) / 4, 0.0f);
  size_t N = size_t(D.Elements);
  if (D.DType == fb::DType::F16) {
    const auto *H = reinterpret_cast<const uint16_t *>(Data);
    for (size_t I = 0; I < N; ++I)
      Out[I] = numerics::halfToFloat(H[I]);
    return Out;
  }
  // Elements per slice of the quantized axis, and the slice count.
  size_t Inner = 1, Dim = 1;
  if (D.QuantAxis >= 0) {
    Dim = size_t(D.dim(D.QuantAxis));
    for (int64_t I = D.QuantAxis + 1; I < D.rank(); ++I)
      Inner *= size_t(D.dim(I));
  }
  for (size_t I = 0; I < N; ++I) {
    size_t C = D.QuantAxis >= 0 ? (I / Inner) % Dim : 0;
    double Q = D.DType == fb::DType::I8
                   ? double(reinterpret_cast<const int8_t *>(Data)[I])
                   : double(reinterpret_cast<const int32_t *>(Data)[I]);
    Out[I] = float((Q - double(D.ZeroPoints[C])) * double(D.Scales[C]));
  }
  return Out;
}

} // namespace kiln::rt
