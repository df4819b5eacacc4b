// Tensor helpers shared by the kernels: allocation (checked against the limits
// when sizes come from run-time operands), f16/bf16 widening, reading integer
// operands, and the strided / index-mapped copies behind the data-movement
// kernels (transpose, slice, expand, pad, tile).
#include "Interpreter/KernelSupport.h"

#include "IR/ShapeInference.h"
#include "Support/Limits.h"

namespace kiln {

Tensor makeTensor(ElementType Elem, llvm::ArrayRef<int64_t> Sizes) {
  int64_t Count = 1;
  for (int64_t S : Sizes)
    Count *= S;
  std::vector<uint8_t> Bytes(size_t(Count) * elementSize(Elem));
  return Tensor(TensorType(Elem, makeShape(Sizes)), Buffer::own(std::move(Bytes)));
}

std::vector<int64_t> sizesOf(const Tensor &T) {
  return staticSizes(T.type().Dims);
}

llvm::Expected<Tensor> newTensor(ElementType Elem,
                                 llvm::ArrayRef<int64_t> Sizes) {
  if (int64_t(Sizes.size()) > limits::MaxRank)
    return inputError("result rank {0} is above the limit {1}", Sizes.size(),
                      limits::MaxRank);
  int64_t Count = 1;
  for (int64_t S : Sizes) {
    if (S < 0)
      return inputError("result has a negative dim {0}", S);
    if (S > limits::MaxDim || __builtin_mul_overflow(Count, S, &Count) ||
        Count > limits::MaxElements)
      return inputError("result of shape {0} is above the element limit {1}",
                        toString(makeShape(Sizes)), limits::MaxElements);
  }
  return makeTensor(Elem, Sizes);
}

llvm::Expected<std::vector<int64_t>> readInts(const Tensor &T,
                                              llvm::StringRef What) {
  if (!isIntegerType(T.type().Elem))
    return inputError("{0} must be an integer tensor, got {1}", What,
                      toString(T.type()));
  std::vector<int64_t> Out(size_t(T.numElements()));
  for (size_t I = 0; I < Out.size(); ++I)
    Out[I] = T.asInt(int64_t(I));
  return Out;
}

Tensor reshaped(const Tensor &T, llvm::ArrayRef<int64_t> Sizes) {
  return Tensor(TensorType(T.type().Elem, makeShape(Sizes)), T.buffer());
}

std::vector<int64_t> contiguousStrides(llvm::ArrayRef<int64_t> Sizes) {
  std::vector<int64_t> St(Sizes.size());
  int64_t S = 1;
  for (size_t D = Sizes.size(); D-- > 0;) {
    St[D] = S;
    S *= Sizes[D];
  }
  return St;
}

Tensor widenToF32(const Tensor &T) {
  ElementType E = T.type().Elem;
  if (!isHalfType(E))
    return T;
  std::vector<int64_t> Sizes = sizesOf(T);
  Tensor Out = makeTensor(ElementType::F32, Sizes);
  const uint16_t *In = dataAs<uint16_t>(T);
  float *O = mutableData<float>(Out);
  int64_t N = T.numElements();
  if (E == ElementType::F16)
    for (int64_t I = 0; I < N; ++I)
      O[I] = halfToFloat(In[I]);
  else
    for (int64_t I = 0; I < N; ++I)
      O[I] = bf16ToFloat(In[I]);
  return Out;
}

Tensor narrowFromF32(const Tensor &T, ElementType To) {
  if (!isHalfType(To) || T.type().Elem != ElementType::F32)
    return T;
  Tensor Out = makeTensor(To, sizesOf(T));
  const float *In = dataAs<float>(T);
  uint16_t *O = mutableData<uint16_t>(Out);
  int64_t N = T.numElements();
  if (To == ElementType::F16)
    for (int64_t I = 0; I < N; ++I)
      O[I] = floatToHalf(In[I]);
  else
    for (int64_t I = 0; I < N; ++I)
      O[I] = floatToBf16(In[I]);
  return Out;
}

std::vector<int64_t> broadcastStrides(llvm::ArrayRef<int64_t> In,
                                      llvm::ArrayRef<int64_t> Out) {
  std::vector<int64_t> Contig = contiguousStrides(In);
  std::vector<int64_t> St(Out.size(), 0);
  size_t Shift = Out.size() - In.size();
  for (size_t D = 0; D < In.size(); ++D)
    St[D + Shift] = In[D] == 1 ? 0 : Contig[D];
  return St;
}

template <typename T>
static void copyElems(const uint8_t *Src, int64_t Stride, uint8_t *Dst,
                      int64_t Len) {
  const T *S = reinterpret_cast<const T *>(Src);
  T *D = reinterpret_cast<T *>(Dst);
  if (Stride == 0) {
    T V = *S;
    for (int64_t I = 0; I < Len; ++I)
      D[I] = V;
  } else {
    for (int64_t I = 0; I < Len; ++I)
      D[I] = S[I * Stride];
  }
}

static void copyRow(const uint8_t *Src, int64_t Stride, uint8_t *Dst,
                    int64_t Len, size_t ElemSize) {
  if (Stride == 1) {
    std::memcpy(Dst, Src, size_t(Len) * ElemSize);
    return;
  }
  switch (ElemSize) {
  case 1: return copyElems<uint8_t>(Src, Stride, Dst, Len);
  case 2: return copyElems<uint16_t>(Src, Stride, Dst, Len);
  case 4: return copyElems<uint32_t>(Src, Stride, Dst, Len);
  case 8: return copyElems<uint64_t>(Src, Stride, Dst, Len);
  default:
    for (int64_t I = 0; I < Len; ++I)
      std::memcpy(Dst + size_t(I) * ElemSize, Src + I * Stride * int64_t(ElemSize),
                  ElemSize);
  }
}

void stridedCopy(ThreadPoolRunner &Pool, const uint8_t *Src, uint8_t *Dst,
                 const IterPlan<1> &P, size_t ElemSize) {
  if (P.Total == 0)
    return;
  int64_t Inner = P.innerStrides()[0];
  int64_t ES = int64_t(ElemSize);
  parallelSegments(Pool, P, [&](int64_t Pos, const std::array<int64_t, 1> &Off,
                                int64_t Len) {
    copyRow(Src + Off[0] * ES, Inner, Dst + Pos * ES, Len, ElemSize);
  });
}

void mappedCopy(const uint8_t *Src, llvm::ArrayRef<int64_t> SrcSizes,
                uint8_t *Dst, llvm::ArrayRef<int64_t> DstSizes,
                const std::vector<std::vector<int64_t>> &Maps,
                const uint8_t *Fill, size_t ElemSize) {
  size_t R = DstSizes.size();
  int64_t Total = 1;
  for (int64_t S : DstSizes)
    Total *= S;
  if (Total == 0)
    return;
  if (R == 0) {
    std::memcpy(Dst, Src, ElemSize);
    return;
  }
  std::vector<int64_t> SrcStrides = contiguousStrides(SrcSizes);
  int64_t Inner = DstSizes[R - 1];
  const std::vector<int64_t> &InnerMap = Maps[R - 1];
  std::vector<int64_t> Idx(R, 0);
  for (int64_t Row = 0; Row * Inner < Total; ++Row) {
    uint8_t *Out = Dst + size_t(Row * Inner) * ElemSize;
    // Source offset of this row, or -1 when the row lies in the fill region.
    int64_t Base = 0;
    for (size_t D = 0; D + 1 < R && Base >= 0; ++D) {
      int64_t M = Maps[D][size_t(Idx[D])];
      Base = M < 0 ? -1 : Base + M * SrcStrides[D];
    }
    for (int64_t O = 0; O < Inner; ++O) {
      int64_t M = Base < 0 ? -1 : InnerMap[size_t(O)];
      std::memcpy(Out + size_t(O) * ElemSize,
                  M < 0 ? Fill : Src + size_t(Base + M) * ElemSize, ElemSize);
    }
    for (size_t D = R - 1; D-- > 0;) {
      if (++Idx[D] < DstSizes[D])
        break;
      Idx[D] = 0;
    }
  }
}

} // namespace kiln
