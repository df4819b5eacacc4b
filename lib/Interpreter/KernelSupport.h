// Private helpers for the kernels in lib/Interpreter (not part of Kernel.h):
// element-type dispatch, so one templated kernel serves every dtype, and
// broadcast/strided iteration, so elementwise, copy and reduction kernels
// walk tensors in long contiguous segments (fast for same-shape, scalar and
// per-channel operands, which is what calibration runs thousands of times).
#pragma once

#include "Interpreter/Kernel.h"
#include "Support/Error.h"

#include <array>
#include <limits>
#include <type_traits>

namespace kiln {

/// Product of sizes (element count of a shape, or of a slice of one).
inline int64_t product(llvm::ArrayRef<int64_t> Sizes) {
  int64_t P = 1;
  for (int64_t S : Sizes)
    P *= S;
  return P;
}

//===-- Element-type dispatch ----------------------------------------------===//

template <typename T> struct TypeTag { using type = T; };

inline llvm::Error unsupportedType(ElementType E) {
  return inputError("element type {0} is not supported by this kernel",
                    elementTypeName(E));
}

/// Calls Fn(TypeTag<T>()) for the C++ type of E among float and double.
template <typename F> llvm::Error visitFloat(ElementType E, F &&Fn) {
  switch (E) {
  case ElementType::F32: return Fn(TypeTag<float>());
  case ElementType::F64: return Fn(TypeTag<double>());
  default: return unsupportedType(E);
  }
}

/// Calls Fn(TypeTag<T>()) for the integer types i8..i64 and u8..u64.
template <typename F> llvm::Error visitInt(ElementType E, F &&Fn) {
  switch (E) {
  case ElementType::I8: return Fn(TypeTag<int8_t>());
  case ElementType::I16: return Fn(TypeTag<int16_t>());
  case ElementType::I32: return Fn(TypeTag<int32_t>());
  case ElementType::I64: return Fn(TypeTag<int64_t>());
  case ElementType::U8: return Fn(TypeTag<uint8_t>());
  case ElementType::U16: return Fn(TypeTag<uint16_t>());
  case ElementType::U32: return Fn(TypeTag<uint32_t>());
  case ElementType::U64: return Fn(TypeTag<uint64_t>());
  default: return unsupportedType(E);
  }
}

/// float, double and every integer type (f16/bf16 are widened by callers).
template <typename F> llvm::Error visitNumeric(ElementType E, F &&Fn) {
  if (E == ElementType::F32 || E == ElementType::F64)
    return visitFloat(E, Fn);
  return visitInt(E, Fn);
}

/// Numeric types plus bool (as uint8_t 0/1), for comparisons.
template <typename F> llvm::Error visitNumericOrBool(ElementType E, F &&Fn) {
  if (E == ElementType::Bool)
    return Fn(TypeTag<uint8_t>());
  return visitNumeric(E, Fn);
}

/// An unsigned-or-float type for arithmetic that must wrap instead of
/// overflowing (signed overflow is undefined in C++, wraps in numpy/ONNX).
/// Narrow ints go to uint32_t so that they are not promoted back to int.
template <typename T>
using WrapType = std::conditional_t<
    std::is_integral<T>::value,
    std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>, T>;

/// double -> T for integer T, truncating toward zero and saturating at the
/// type's range (NaN gives 0), so out-of-range values are never undefined.
using numerics::saturateCast;

/// NaN test that also compiles (to false) for integer T.
template <typename T> bool isNaN(T V) {
  if constexpr (std::is_floating_point<T>::value)
    return V != V;
  else
    return false;
}

inline bool isHalfType(ElementType E) {
  return E == ElementType::F16 || E == ElementType::BF16;
}
/// f16/bf16 -> f32 (others unchanged): kernels compute halves in f32.
Tensor widenToF32(const Tensor &T);
/// f32 -> f16/bf16 (round to nearest even), the inverse of widenToF32.
Tensor narrowFromF32(const Tensor &T, ElementType To);

//===-- Tensors from run-time operands --------------------------------------===//

/// A zero-filled tensor, after checking the sizes are non-negative and within
/// the element limit (sizes may come from a run-time shape operand).
llvm::Expected<Tensor> newTensor(ElementType Elem,
                                 llvm::ArrayRef<int64_t> Sizes);
/// The contents of an integer operand (shape, axes, pads...) as int64.
llvm::Expected<std::vector<int64_t>> readInts(const Tensor &T,
                                              llvm::StringRef What);
/// A tensor with T's data and another shape of the same element count.
Tensor reshaped(const Tensor &T, llvm::ArrayRef<int64_t> Sizes);
/// Row-major strides of Sizes, in elements.
std::vector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> Sizes);

//===-- Broadcast and strided iteration ------------------------------------===//

/// How K operands are read while writing a contiguous output: per output
/// dim, each operand's stride in elements (0 where it broadcasts). Size-1
/// dims are dropped and mergeable neighbours coalesced, so a same-shape
/// binary op becomes one long row and a per-channel one [N*C, H*W].
template <unsigned K> struct IterPlan {
  std::vector<int64_t> Sizes; // at least one dim
  std::vector<std::array<int64_t, K>> Strides;
  int64_t Total = 1;

  const std::array<int64_t, K> &innerStrides() const { return Strides.back(); }
};

template <unsigned K>
IterPlan<K> planStrided(llvm::ArrayRef<int64_t> Out,
                        const std::array<std::vector<int64_t>, K> &Strides) {
  IterPlan<K> P;
  for (int64_t S : Out)
    P.Total *= S;
  for (size_t D = 0; D < Out.size(); ++D) {
    if (Out[D] == 1)
      continue;
    std::array<int64_t, K> St;
    for (unsigned I = 0; I < K; ++I)
      St[I] = Strides[I][D];
    if (!P.Sizes.empty()) {
      bool Merge = true;
      for (unsigned I = 0; I < K; ++I)
        Merge &= P.Strides.back()[I] == St[I] * Out[D];
      if (Merge) {
        P.Sizes.back() *= Out[D];
        P.Strides.back() = St;
        continue;
      }
    }
    P.Sizes.push_back(Out[D]);
    P.Strides.push_back(St);
  }
  if (P.Sizes.empty()) {
    P.Sizes.push_back(1);
    P.Strides.push_back({});
  }
  return P;
}

/// Strides of an operand of sizes In read as broadcast to Out (numpy rules,
/// aligned at the right). Out must be the broadcast result.
std::vector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> In,
                                      llvm::ArrayRef<int64_t> Out);

template <unsigned K>
IterPlan<K> planBroadcast(llvm::ArrayRef<int64_t> Out,
                          const std::array<std::vector<int64_t>, K> &Ins) {
  std::array<std::vector<int64_t>, K> St;
  for (unsigned I = 0; I < K; ++I)
    St[I] = broadcastStrides(Ins[I], Out);
  return planStrided<K>(Out, St);
}

/// Walks output positions [Begin, End) of P in segments along the innermost
/// dim: Fn(OutPos, Offsets, Len), where Offsets are the operands' element
/// offsets at OutPos and each advances by P.innerStrides() per element.
template <unsigned K, typename F>
void forEachSegment(const IterPlan<K> &P, int64_t Begin, int64_t End, F &&Fn) {
  if (Begin >= End)
    return;
  size_t R = P.Sizes.size();
  std::vector<int64_t> Idx(R);
  std::array<int64_t, K> Off{};
  int64_t Rem = Begin;
  for (size_t D = R; D-- > 0;) {
    Idx[D] = Rem % P.Sizes[D];
    Rem /= P.Sizes[D];
    for (unsigned I = 0; I < K; ++I)
      Off[I] += Idx[D] * P.Strides[D][I];
  }
  int64_t Inner = P.Sizes[R - 1], Pos = Begin;
  while (Pos < End) {
    int64_t Len = std::min(Inner - Idx[R - 1], End - Pos);
    Fn(Pos, static_cast<const std::array<int64_t, K> &>(Off), Len);
    Pos += Len;
    Idx[R - 1] += Len;
    for (unsigned I = 0; I < K; ++I)
      Off[I] += Len * P.Strides[R - 1][I];
    if (Idx[R - 1] < Inner)
      continue;
    for (size_t D = R; D-- > 0;) {
      if (D != R - 1) {
        ++Idx[D];
        for (unsigned I = 0; I < K; ++I)
          Off[I] += P.Strides[D][I];
      }
      if (Idx[D] < P.Sizes[D] || D == 0)
        break;
      for (unsigned I = 0; I < K; ++I)
        Off[I] -= P.Sizes[D] * P.Strides[D][I];
      Idx[D] = 0;
    }
  }
}

/// Elements per parallel chunk for cheap elementwise work.
constexpr int64_t ElementwiseChunk = 1 << 15;

/// forEachSegment over the whole plan, split across the pool.
template <unsigned K, typename F>
void parallelSegments(ThreadPoolRunner &Pool, const IterPlan<K> &P, F &&Fn) {
  Pool.parallelFor(P.Total, ElementwiseChunk, [&](int64_t B, int64_t E) {
    forEachSegment(P, B, E, Fn);
  });
}

/// Copies the elements P reads from Src (offset 0 = Src) into contiguous Dst.
void stridedCopy(ThreadPoolRunner &Pool, const uint8_t *Src, uint8_t *Dst,
                 const IterPlan<1> &P, size_t ElemSize);

/// Fills Dst (sizes DstSizes, contiguous) from Src (sizes SrcSizes): along
/// each dim d, output coordinate o reads source coordinate Maps[d][o], or
/// takes the Fill element where any coordinate is -1. Pad and tile use it.
void mappedCopy(const uint8_t *Src, llvm::ArrayRef<int64_t> SrcSizes,
                uint8_t *Dst, llvm::ArrayRef<int64_t> DstSizes,
                const std::vector<std::vector<int64_t>> &Maps,
                const uint8_t *Fill, size_t ElemSize);

// Registration of the kernel files split out of the four groups in Kernel.h.
void registerBinaryKernels();
void registerCastKernels();
void registerIndexKernels();

} // namespace kiln
