// Kernels that compute or follow indices: gather, argmax/argmin, topk and
// range. Ties follow ONNX: the lowest index wins (argmax/argmin unless
// select_last_index; topk always). NaN counts as the largest value in topk's
// ordering and is picked first by argmax/argmin, as numpy does, so sorting
// never sees an inconsistent comparison.
#include "Interpreter/KernelSupport.h"

#include "IR/ShapeInference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln {

namespace {

llvm::Error gatherKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0);
  std::vector<int64_t> In = sizesOf(X);
  auto Axis = normalizeAxis(Ctx.N.getInt("axis"), int64_t(In.size()));
  if (!Axis)
    return Axis.takeError();
  auto Idx = readInts(*Ctx.input(1), "gather indices");
  if (!Idx)
    return Idx.takeError();
  size_t A = size_t(*Axis);
  for (int64_t &I : *Idx) {
    if (I < -In[A] || I >= In[A])
      return inputError("gather index {0} is out of range for axis {1} of "
                        "size {2}",
                        I, A, In[A]);
    if (I < 0)
      I += In[A];
  }
  std::vector<int64_t> Out(In.begin(), In.begin() + A);
  std::vector<int64_t> IdxSizes = sizesOf(*Ctx.input(1));
  Out.insert(Out.end(), IdxSizes.begin(), IdxSizes.end());
  Out.insert(Out.end(), In.begin() + A + 1, In.end());
  auto R = newTensor(X.type().Elem, Out);
  if (!R)
    return R.takeError();
  llvm::ArrayRef<int64_t> S(In);
  int64_t Outer = product(S.take_front(A));
  size_t Bytes = size_t(product(S.drop_front(A + 1))) * elementSize(X.type().Elem);
  const uint8_t *Src = X.buffer().data();
  uint8_t *Dst = mutableData<uint8_t>(*R);
  for (int64_t O = 0; O < Outer; ++O)
    for (int64_t I : *Idx) {
      std::memcpy(Dst, Src + size_t(O * In[A] + I) * Bytes, Bytes);
      Dst += Bytes;
    }
  Ctx.Outputs.push_back(std::move(*R));
  return llvm::Error::success();
}

/// ONNX ScatterND without reduction: each index tuple of K ints picks a
/// slice of data (its last rank - K axes), which the matching slice of
/// updates replaces, in order.
llvm::Error scatterNDKernel(KernelContext &Ctx) {
  const Tensor &X = *Ctx.input(0), &U = *Ctx.input(2);
  std::vector<int64_t> In = sizesOf(X), IdxSizes = sizesOf(*Ctx.input(1));
  auto Idx = readInts(*Ctx.input(1), "scatter_nd indices");
  if (!Idx)
    return Idx.takeError();
  size_t K = size_t(IdxSizes.back());
  if (K < 1 || K > In.size())
    return inputError("scatter_nd index tuples of {0} do not fit data of "
                      "rank {1}",
                      K, In.size());
  llvm::ArrayRef<int64_t> S(In);
  int64_t Tuples = product(llvm::ArrayRef<int64_t>(IdxSizes).drop_back());
  size_t Bytes = size_t(product(S.drop_front(K))) * elementSize(X.type().Elem);
  if (size_t(U.numElements()) * elementSize(X.type().Elem) !=
      size_t(Tuples) * Bytes)
    return inputError("scatter_nd updates {0} do not match {1} slices of "
                      "{2} bytes",
                      toString(U.type()), Tuples, Bytes);
  Tensor R(X.type(), Buffer::copy(X.buffer().bytes()));
  uint8_t *Dst = mutableData<uint8_t>(R);
  const uint8_t *Src = U.buffer().data();
  for (int64_t T = 0; T < Tuples; ++T) {
    int64_t Offset = 0;
    for (size_t D = 0; D < K; ++D) {
      int64_t I = (*Idx)[size_t(T) * K + D];
      if (I < -In[D] || I >= In[D])
        return inputError("scatter_nd index {0} is out of range for axis {1} "
                          "of size {2}",
                          I, D, In[D]);
      Offset = Offset * In[D] + (I < 0 ? I + In[D] : I);
    }
    std::memcpy(Dst + size_t(Offset) * Bytes, Src + size_t(T) * Bytes, Bytes);
  }
  Ctx.Outputs.push_back(std::move(R));
  return llvm::Error::success();
}

/// [Outer, N, Inner] view of a tensor around Axis.
struct AxisView {
  int64_t Outer, N, Inner;
};

llvm::Expected<AxisView> viewAround(const Tensor &X, int64_t AxisAttr,
                                    size_t &Axis) {
  std::vector<int64_t> In = sizesOf(X);
  auto A = normalizeAxis(AxisAttr, int64_t(In.size()));
  if (!A)
    return A.takeError();
  Axis = size_t(*A);
  llvm::ArrayRef<int64_t> S(In);
  if (S.empty())
    return AxisView{1, 1, 1};
  return AxisView{product(S.take_front(Axis)), S[Axis],
                  product(S.drop_front(Axis + 1))};
}

template <bool IsMax> llvm::Error argKernel(KernelContext &Ctx) {
  Tensor X = widenToF32(*Ctx.input(0));
  size_t Axis;
  auto V = viewAround(X, Ctx.N.getInt("axis"), Axis);
  if (!V)
    return V.takeError();
  if (V->N == 0)
    return inputError("cannot take the arg-{0} of an empty axis",
                      IsMax ? "max" : "min");
  std::vector<int64_t> Out = sizesOf(X);
  if (!Out.empty()) {
    if (Ctx.N.getInt("keepdims"))
      Out[Axis] = 1;
    else
      Out.erase(Out.begin() + Axis);
  }
  Tensor R = makeTensor(ElementType::I64, Out);
  bool Last = Ctx.N.getInt("select_last_index") != 0;
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    const T *P = dataAs<T>(X);
    int64_t *O = mutableData<int64_t>(R);
    auto Better = [&](T Cand, T Best) {
      if (isNaN(Best))
        return false; // the first NaN wins
      if (isNaN(Cand))
        return true;
      if (Last)
        return IsMax ? Cand >= Best : Cand <= Best;
      return IsMax ? Cand > Best : Cand < Best;
    };
    for (int64_t Outer = 0; Outer < V->Outer; ++Outer)
      for (int64_t In = 0; In < V->Inner; ++In) {
        const T *Row = P + Outer * V->N * V->Inner + In;
        int64_t BestI = 0;
        for (int64_t I = 1; I < V->N; ++I)
          if (Better(Row[I * V->Inner], Row[BestI * V->Inner]))
            BestI = I;
        O[Outer * V->Inner + In] = BestI;
      }
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(X.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(std::move(R));
  return llvm::Error::success();
}

llvm::Error topkKernel(KernelContext &Ctx) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor X = widenToF32(*Ctx.input(0));
  size_t Axis;
  auto V = viewAround(X, Ctx.N.getInt("axis"), Axis);
  if (!V)
    return V.takeError();
  auto KV = readInts(*Ctx.input(1), "topk k");
  if (!KV)
    return KV.takeError();
  if (KV->size() != 1 || (*KV)[0] < 0 || (*KV)[0] > V->N)
    return inputError("topk k must be one value in [0, {0}]", V->N);
  int64_t K = (*KV)[0];
  std::vector<int64_t> Out = sizesOf(X);
  if (Out.empty())
    return inputError("topk needs a tensor of rank >= 1");
  Out[Axis] = K;
  Tensor Vals = makeTensor(X.type().Elem, Out);
  Tensor Idx = makeTensor(ElementType::I64, Out);
  bool Largest = Ctx.N.getInt("largest") != 0;
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    const T *P = dataAs<T>(X);
    T *OV = mutableData<T>(Vals);
    int64_t *OI = mutableData<int64_t>(Idx);
    // A total order in which NaN is the largest value.
    auto Less = [](T A, T B) { return isNaN(B) ? !isNaN(A) : A < B; };
    std::vector<int64_t> Order(size_t(V->N));
    std::vector<T> Row(size_t(V->N));
    for (int64_t Outer = 0; Outer < V->Outer; ++Outer)
      for (int64_t In = 0; In < V->Inner; ++In) {
        const T *Src = P + Outer * V->N * V->Inner + In;
        for (int64_t I = 0; I < V->N; ++I)
          Row[size_t(I)] = Src[I * V->Inner];
        std::iota(Order.begin(), Order.end(), 0);
        std::partial_sort(Order.begin(), Order.begin() + K, Order.end(),
                          [&](int64_t A, int64_t B) {
                            T VA = Row[size_t(A)], VB = Row[size_t(B)];
                            if (Largest ? Less(VB, VA) : Less(VA, VB))
                              return true;
                            if (Largest ? Less(VA, VB) : Less(VB, VA))
                              return false;
                            return A < B;
                          });
        int64_t Base = Outer * K * V->Inner + In;
        for (int64_t I = 0; I < K; ++I) {
          OV[Base + I * V->Inner] = Row[size_t(Order[size_t(I)])];
          OI[Base + I * V->Inner] = Order[size_t(I)];
        }
      }
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(X.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(Vals, Orig));
  Ctx.Outputs.push_back(std::move(Idx));
  return llvm::Error::success();
}

// range: start, start + delta, ... while below limit (above, for delta < 0);
// count = max(ceil((limit - start) / delta), 0), values start + i * delta.
llvm::Error rangeKernel(KernelContext &Ctx) {
  const Tensor &S = *Ctx.input(0), &L = *Ctx.input(1), &D = *Ctx.input(2);
  ElementType E = S.type().Elem;
  if (L.type().Elem != E || D.type().Elem != E || S.numElements() != 1 ||
      L.numElements() != 1 || D.numElements() != 1)
    return inputError("range start, limit and delta must be scalars of one "
                      "type");
  if (D.asDouble(0) == 0)
    return inputError("range delta is 0");
  double Count = std::ceil((L.asDouble(0) - S.asDouble(0)) / D.asDouble(0));
  if (!(Count < 1e15)) // NaN or infinite too
    return inputError("range has too many elements");
  auto Out = newTensor(E, {std::max<int64_t>(0, int64_t(Count))});
  if (!Out)
    return Out.takeError();
  if (isHalfType(E))
    return unsupportedType(E);
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    T Start = S.at<T>(0), Delta = D.at<T>(0);
    T *O = mutableData<T>(*Out);
    for (int64_t I = 0, N = Out->numElements(); I < N; ++I)
      O[I] = T(WrapType<T>(Start) + WrapType<T>(T(I)) * WrapType<T>(Delta));
    return llvm::Error::success();
  };
  if (auto Err = visitNumeric(E, Body))
    return Err;
  Ctx.Outputs.push_back(std::move(*Out));
  return llvm::Error::success();
}

} // namespace

void registerIndexKernels() {
  registerKernel("gather", gatherKernel);
  registerKernel("scatter_nd", scatterNDKernel);
  registerKernel("argmax", argKernel<true>);
  registerKernel("argmin", argKernel<false>);
  registerKernel("topk", topkKernel);
  registerKernel("range", rangeKernel);
}

} // namespace kiln
