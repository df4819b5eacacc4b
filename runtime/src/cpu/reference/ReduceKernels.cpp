// Reference REDUCE on f32: sum, mean, max and min over a set of axes. Every
// input element is added into the output element its kept axes name
// (reduced axes have output stride 0); mean divides at the end.
#include "cpu/reference/ReferenceKernels.h"

#include <limits>
#include <type_traits>

namespace kiln::rt::ref {

RunFn reduce(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_ReduceOptions();
  std::vector<int64_t> XShape = A.In[0].shape();
  std::vector<char> Reduced(XShape.size(), 0);
  if (O.axes())
    for (int32_t Axis : *O.axes())
      Reduced[size_t(Axis)] = 1;
  // Output strides per input dim (the kept-dims form and the dropped-dims
  // form have the same element order).
  std::vector<int64_t> OutStrides(XShape.size(), 0);
  int64_t Stride = 1;
  for (size_t D = XShape.size(); D-- > 0;)
    if (!Reduced[D]) {
      OutStrides[D] = Stride;
      Stride *= XShape[D];
    }
  fb::ReduceOp Op = O.op();
  uint64_t InCount = A.In[0].elements(), OutCount = A.Out[0].elements();
  float Count = OutCount ? float(double(InCount) / double(OutCount)) : 1.0f;
  const float *X = A.In[0].as<const float>();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    float Init = Op == fb::ReduceOp::MAXIMUM   ? -std::numeric_limits<float>::infinity()
                 : Op == fb::ReduceOp::MINIMUM ? std::numeric_limits<float>::infinity()
                                           : 0.0f;
    std::fill(Y, Y + OutCount, Init);
    std::vector<int64_t> Index(XShape.size(), 0);
    int64_t Out = 0;
    for (uint64_t I = 0; I < InCount; ++I) {
      float V = X[I];
      float &R = Y[Out];
      switch (Op) {
      case fb::ReduceOp::MAXIMUM: R = std::max(R, V); break;
      case fb::ReduceOp::MINIMUM: R = std::min(R, V); break;
      default: R += V; break;
      }
      for (size_t D = XShape.size(); D-- > 0;) {
        Out += OutStrides[D];
        if (++Index[D] < XShape[D])
          break;
        Out -= OutStrides[D] * XShape[D];
        Index[D] = 0;
      }
    }
    if (Op == fb::ReduceOp::MEAN)
      for (uint64_t I = 0; I < OutCount; ++I)
        Y[I] /= Count;
    return Status::ok();
  };
}

namespace {

template <typename T> bool isNaN(T V) {
  if constexpr (std::is_floating_point_v<T>)
    return V != V;
  else
    return false;
}

template <typename T>
RunFn argReduceOf(const KernelArgs &A, int64_t Outer, int64_t N,
                  int64_t Inner, bool IsMin, bool Last) {
  const T *X = A.In[0].as<const T>();
  int64_t *Y = A.Out[0].as<int64_t>();
  return [=]() {
    // The first NaN wins; otherwise the first (or last) extreme value.
    auto Better = [&](T Cand, T Best) {
      if (isNaN(Best))
        return false;
      if (isNaN(Cand))
        return true;
      if (Last)
        return IsMin ? Cand <= Best : Cand >= Best;
      return IsMin ? Cand < Best : Cand > Best;
    };
    for (int64_t O = 0; O < Outer; ++O)
      for (int64_t In = 0; In < Inner; ++In) {
        const T *Row = X + O * N * Inner + In;
        int64_t BestI = 0;
        for (int64_t I = 1; I < N; ++I)
          if (Better(Row[I * Inner], Row[BestI * Inner]))
            BestI = I;
        Y[O * Inner + In] = BestI;
      }
    return Status::ok();
  };
}

} // namespace

RunFn argReduce(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_ArgReduceOptions();
  int64_t Axis = O.axis(), Outer = 1, Inner = 1, N = A.In[0].dim(Axis);
  for (int64_t D = 0; D < A.In[0].rank(); ++D)
    if (D != Axis)
      (D < Axis ? Outer : Inner) *= A.In[0].dim(D);
  switch (A.In[0].Desc->DType) {
  case fb::DType::I32:
    return argReduceOf<int32_t>(A, Outer, N, Inner, O.min(), O.select_last_index());
  case fb::DType::I64:
    return argReduceOf<int64_t>(A, Outer, N, Inner, O.min(), O.select_last_index());
  default:
    return argReduceOf<float>(A, Outer, N, Inner, O.min(), O.select_last_index());
  }
}

} // namespace kiln::rt::ref
