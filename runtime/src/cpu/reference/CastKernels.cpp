// Reference CAST between every element type, through one of three wide
// forms: double for floating types, int64 for signed integers, uint64 for
// unsigned ones and BOOL. Float to integer truncates toward zero and
// saturates (NaN becomes 0); integer to integer wraps; anything to BOOL is
// "!= 0" (NaN is true); f64 to f16 rounds once (round-to-odd through f32);
// to bf16 truncates the f32 bits. These are numpy's and the IR
// interpreter's rules.
#include "cpu/reference/ReferenceKernels.h"
#include "numerics/FloatConversions.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace kiln::rt::ref {

namespace {

using fb::DType;

enum class Wide { Float, Signed, Unsigned };

Wide wideOf(DType T) {
  switch (T) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
    return Wide::Float;
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
    return Wide::Signed;
  default:
    return Wide::Unsigned;
  }
}

template <typename S, typename W> W loadAs(const uint8_t *P, uint64_t I) {
  S V;
  std::memcpy(&V, P + I * sizeof(S), sizeof(S));
  return W(V);
}

template <typename W> W load(DType T, const uint8_t *P, uint64_t I) {
  switch (T) {
  case DType::F32: return loadAs<float, W>(P, I);
  case DType::F64: return loadAs<double, W>(P, I);
  case DType::F16: return W(numerics::halfToFloat(loadAs<uint16_t, uint16_t>(P, I)));
  case DType::BF16: return W(numerics::bf16ToFloat(loadAs<uint16_t, uint16_t>(P, I)));
  case DType::I8: return loadAs<int8_t, W>(P, I);
  case DType::I16: return loadAs<int16_t, W>(P, I);
  case DType::I32: return loadAs<int32_t, W>(P, I);
  case DType::I64: return loadAs<int64_t, W>(P, I);
  case DType::U8: return loadAs<uint8_t, W>(P, I);
  case DType::U16: return loadAs<uint16_t, W>(P, I);
  case DType::U32: return loadAs<uint32_t, W>(P, I);
  case DType::U64: return loadAs<uint64_t, W>(P, I);
  default: return W(P[I] != 0); // BOOL
  }
}

template <typename D, typename W> void storeAs(uint8_t *P, uint64_t I, W V) {
  D Out;
  if constexpr (std::is_floating_point_v<W>)
    Out = numerics::saturateCast<D>(V);
  else
    Out = D(V);
  std::memcpy(P + I * sizeof(D), &Out, sizeof(D));
}

template <typename W> void store(DType T, uint8_t *P, uint64_t I, W V) {
  switch (T) {
  case DType::F32: return storeAs<float>(P, I, V);
  case DType::F64: return storeAs<double>(P, I, V);
  case DType::F16:
  case DType::BF16: {
    float F = numerics::toFloatRoundToOdd(double(V));
    uint16_t H = T == DType::F16 ? numerics::floatToHalf(F)
                                 : numerics::truncateToBf16(F);
    std::memcpy(P + I * 2, &H, 2);
    return;
  }
  case DType::I8: return storeAs<int8_t>(P, I, V);
  case DType::I16: return storeAs<int16_t>(P, I, V);
  case DType::I32: return storeAs<int32_t>(P, I, V);
  case DType::I64: return storeAs<int64_t>(P, I, V);
  case DType::U8: return storeAs<uint8_t>(P, I, V);
  case DType::U16: return storeAs<uint16_t>(P, I, V);
  case DType::U32: return storeAs<uint32_t>(P, I, V);
  case DType::U64: return storeAs<uint64_t>(P, I, V);
  default: P[I] = V != 0; return; // BOOL
  }
}

template <typename W>
void convert(DType From, const uint8_t *In, DType To, uint8_t *Out,
             uint64_t N) {
  for (uint64_t I = 0; I < N; ++I)
    store<W>(To, Out, I, load<W>(From, In, I));
}

} // namespace

RunFn cast(const KernelArgs &A) {
  DType From = A.In[0].Desc->DType, To = A.Out[0].Desc->DType;
  const uint8_t *X = A.In[0].Data;
  uint8_t *Y = A.Out[0].Data;
  uint64_t N = A.In[0].elements();
  size_t Bytes = size_t(A.In[0].Desc->Bytes);
  return [=]() {
    if (From == To) {
      if (Bytes)
        std::memcpy(Y, X, Bytes);
      return Status::ok();
    }
    switch (wideOf(From)) {
    case Wide::Float: convert<double>(From, X, To, Y, N); break;
    case Wide::Signed: convert<int64_t>(From, X, To, Y, N); break;
    case Wide::Unsigned: convert<uint64_t>(From, X, To, Y, N); break;
    }
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
