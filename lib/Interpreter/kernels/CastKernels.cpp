// cast: converts between all 13 element types. Values go through one of
// three wide forms (double for floating types, int64 for signed and uint64
// for unsigned/bool), in blocks on the stack, so the kernel needs 13 loaders
// and 3x13 storers instead of 169 direct loops. Semantics follow numpy /
// ONNX: float -> int truncates toward zero (saturating here, where C++ would
// be undefined), int -> int wraps, anything -> bool is "!= 0" (NaN is true).
// f64 -> f16 rounds once (round-to-odd through f32, then nearest-even).
// -> bf16 truncates the f32 bits, as the ONNX 1.12 conformance data
// (test_cast_FLOAT_to_BFLOAT16) expects; NaN stays NaN.
#include "Interpreter/KernelSupport.h"

#include <cmath>

namespace kiln {

namespace {

enum class WideKind { Float, Signed, Unsigned };

WideKind wideKind(ElementType E) {
  if (isFloatType(E))
    return WideKind::Float;
  if (E == ElementType::Bool || !isSignedType(E))
    return WideKind::Unsigned;
  return WideKind::Signed;
}

template <typename S, typename WideT>
void loadAs(const uint8_t *In, WideT *Out, int64_t N) {
  const S *P = reinterpret_cast<const S *>(In);
  for (int64_t I = 0; I < N; ++I)
    Out[I] = WideT(P[I]);
}

/// Source elements [0, N) of type E into the wide buffer.
template <typename WideT>
void load(ElementType E, const uint8_t *In, WideT *Out, int64_t N) {
  switch (E) {
  case ElementType::F32: return loadAs<float>(In, Out, N);
  case ElementType::F64: return loadAs<double>(In, Out, N);
  case ElementType::F16:
  case ElementType::BF16: {
    const uint16_t *P = reinterpret_cast<const uint16_t *>(In);
    for (int64_t I = 0; I < N; ++I)
      Out[I] = WideT(E == ElementType::F16 ? halfToFloat(P[I]) : bf16ToFloat(P[I]));
    return;
  }
  case ElementType::I8: return loadAs<int8_t>(In, Out, N);
  case ElementType::I16: return loadAs<int16_t>(In, Out, N);
  case ElementType::I32: return loadAs<int32_t>(In, Out, N);
  case ElementType::I64: return loadAs<int64_t>(In, Out, N);
  case ElementType::U8: return loadAs<uint8_t>(In, Out, N);
  case ElementType::U16: return loadAs<uint16_t>(In, Out, N);
  case ElementType::U32: return loadAs<uint32_t>(In, Out, N);
  case ElementType::U64: return loadAs<uint64_t>(In, Out, N);
  case ElementType::Bool: {
    for (int64_t I = 0; I < N; ++I)
      Out[I] = WideT(In[I] != 0);
    return;
  }
  }
}

template <typename D, typename WideT>
void storeAs(const WideT *In, uint8_t *Out, int64_t N) {
  D *P = reinterpret_cast<D *>(Out);
  for (int64_t I = 0; I < N; ++I) {
    if constexpr (std::is_floating_point<WideT>::value)
      P[I] = saturateCast<D>(In[I]);
    else
      P[I] = D(In[I]); // int -> int (or float) wraps / rounds like numpy
  }
}

template <typename WideT>
void store(ElementType E, const WideT *In, uint8_t *Out, int64_t N) {
  switch (E) {
  case ElementType::F32: return storeAs<float>(In, Out, N);
  case ElementType::F64: return storeAs<double>(In, Out, N);
  case ElementType::F16:
  case ElementType::BF16: {
    uint16_t *P = reinterpret_cast<uint16_t *>(Out);
    for (int64_t I = 0; I < N; ++I) {
      float F = numerics::toFloatRoundToOdd(double(In[I]));
      P[I] = E == ElementType::F16 ? floatToHalf(F) : numerics::truncateToBf16(F);
    }
    return;
  }
  case ElementType::I8: return storeAs<int8_t>(In, Out, N);
  case ElementType::I16: return storeAs<int16_t>(In, Out, N);
  case ElementType::I32: return storeAs<int32_t>(In, Out, N);
  case ElementType::I64: return storeAs<int64_t>(In, Out, N);
  case ElementType::U8: return storeAs<uint8_t>(In, Out, N);
  case ElementType::U16: return storeAs<uint16_t>(In, Out, N);
  case ElementType::U32: return storeAs<uint32_t>(In, Out, N);
  case ElementType::U64: return storeAs<uint64_t>(In, Out, N);
  case ElementType::Bool:
    for (int64_t I = 0; I < N; ++I)
      Out[I] = In[I] != 0;
    return;
  }
}

template <typename WideT>
void convertRange(ElementType From, const uint8_t *In, ElementType To,
                  uint8_t *Out, int64_t B, int64_t E) {
  constexpr int64_t Block = 512;
  WideT Buf[Block];
  size_t SI = elementSize(From), SO = elementSize(To);
  for (int64_t I = B; I < E; I += Block) {
    int64_t N = std::min(Block, E - I);
    load(From, In + size_t(I) * SI, Buf, N);
    store(To, Buf, Out + size_t(I) * SO, N);
  }
}

llvm::Error castKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  auto To = parseElementType(Ctx.N.getString("to"));
  if (!To)
    return inputError("unknown element type '{0}'", Ctx.N.getString("to"));
  ElementType From = X.type().Elem;
  if (From == *To) {
    Ctx.Outputs.push_back(X);
    return llvm::Error::success();
  }
  Tensor Out = makeTensor(*To, sizesOf(X));
  const uint8_t *In = X.buffer().data();
  uint8_t *O = mutableData<uint8_t>(Out);
  Ctx.Pool.parallelFor(X.numElements(), ElementwiseChunk, [&](int64_t B, int64_t E) {
    switch (wideKind(From)) {
    case WideKind::Float: return convertRange<double>(From, In, *To, O, B, E);
    case WideKind::Signed: return convertRange<int64_t>(From, In, *To, O, B, E);
    case WideKind::Unsigned: return convertRange<uint64_t>(From, In, *To, O, B, E);
    }
  });
  Ctx.Outputs.push_back(std::move(Out));
  return llvm::Error::success();
}

} // namespace

void registerCastKernels() { registerKernel("cast", castKernel); }

} // namespace kiln
