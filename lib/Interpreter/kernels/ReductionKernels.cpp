// reduce_mean / sum / max / min over a set of axes (optional integer operand;
// absent or empty means all axes, or nothing with noop_with_empty_axes).
// The input is walked once in its own order while an IterPlan maps each
// position to its output slot, so reducing the innermost axes (global
// pooling, layer statistics) sums contiguous rows. Float sums accumulate in
// double; max/min propagate NaN like numpy. Reducing an empty set gives 0
// (sum), NaN (mean), -inf/lowest (max) and +inf/highest (min), as ONNX 18.
#include "Interpreter/KernelSupport.h"

#include "IR/ShapeInference.h"

#include <cmath>

namespace kiln {

namespace {

enum class Reduce { Sum, Mean, Max, Min };

template <Reduce R, typename T> struct Accum {
  static constexpr bool IsSum = R == Reduce::Sum || R == Reduce::Mean;
  using type = std::conditional_t<
      IsSum, std::conditional_t<std::is_floating_point<T>::value, double, uint64_t>,
      T>;

  static type init() {
    if constexpr (IsSum)
      return type(0);
    else if constexpr (std::is_floating_point<T>::value)
      return R == Reduce::Max ? -std::numeric_limits<T>::infinity()
                              : std::numeric_limits<T>::infinity();
    else
      return R == Reduce::Max ? std::numeric_limits<T>::lowest()
                              : std::numeric_limits<T>::max();
  }
  static type combine(type Acc, T V) {
    if constexpr (IsSum)
      return Acc + type(V); // ints wrap in uint64_t
    else if constexpr (R == Reduce::Max)
      return (V > Acc || isNaN(V)) ? V : Acc;
    else
      return (V < Acc || isNaN(V)) ? V : Acc;
  }
  static T finish(type Acc, int64_t Count) {
    if constexpr (R == Reduce::Mean) {
      if constexpr (std::is_floating_point<T>::value)
        return T(Acc / double(Count));
      else
        return Count ? T(int64_t(Acc) / Count) : T(0);
    } else {
      return T(Acc);
    }
  }
};

template <Reduce R, typename T>
void reduceTyped(ThreadPoolRunner &Pool, const Tensor &X, const IterPlan<1> &P,
                 int64_t Count, Tensor &Out) {
  using A = Accum<R, T>;
  using AccT = typename A::type;
  std::vector<AccT> Acc(size_t(Out.numElements()), A::init());
  const T *In = dataAs<T>(X);
  int64_t SO = P.innerStrides()[0];
  auto Row = [&](int64_t Pos, const std::array<int64_t, 1> &Off, int64_t Len) {
    AccT *Dst = Acc.data() + Off[0];
    const T *Src = In + Pos;
    if (SO == 0) {
      AccT V = *Dst;
      for (int64_t I = 0; I < Len; ++I)
        V = A::combine(V, Src[I]);
      *Dst = V;
    } else {
      for (int64_t I = 0; I < Len; ++I)
        Dst[I * SO] = A::combine(Dst[I * SO], Src[I]);
    }
  };
  if (P.Total == 0) {
    // Nothing to read: every output keeps the identity of the reduction.
  } else if (P.Strides[0][0] != 0 && P.Sizes.size() > 1) {
    // The outermost dim is kept: its slices write disjoint outputs.
    int64_t RowSize = P.Total / P.Sizes[0];
    Pool.parallelFor(P.Sizes[0], std::max<int64_t>(1, ElementwiseChunk / RowSize),
                     [&](int64_t B, int64_t E) {
                       forEachSegment(P, B * RowSize, E * RowSize, Row);
                     });
  } else {
    forEachSegment(P, 0, P.Total, Row);
  }
  T *O = mutableData<T>(Out);
  for (size_t I = 0; I < Acc.size(); ++I)
    O[I] = A::finish(Acc[I], Count);
}

template <Reduce R> llvm::Error reduceKernel(KernelContext &Ctx) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor X = widenToF32(*Ctx.input(0));
  std::vector<int64_t> In = sizesOf(X);
  std::vector<bool> Reduced(In.size(), false);
  std::vector<int64_t> Axes;
  if (const Tensor *AxesT = Ctx.input(1)) {
    auto V = readInts(*AxesT, "reduction axes");
    if (!V)
      return V.takeError();
    Axes = std::move(*V);
  }
  if (Axes.empty()) {
    if (Ctx.N.getInt("noop_with_empty_axes")) {
      Ctx.Outputs.push_back(*Ctx.input(0));
      return llvm::Error::success();
    }
    Reduced.assign(In.size(), true);
  }
  for (int64_t A : Axes) {
    auto NA = normalizeAxis(A, int64_t(In.size()));
    if (!NA)
      return NA.takeError();
    Reduced[size_t(*NA)] = true;
  }
  bool Keep = Ctx.N.getInt("keepdims") != 0;
  std::vector<int64_t> KeptSizes, Out;
  int64_t Count = 1;
  for (size_t D = 0; D < In.size(); ++D) {
    KeptSizes.push_back(Reduced[D] ? 1 : In[D]);
    if (Reduced[D])
      Count *= In[D];
    if (!Reduced[D] || Keep)
      Out.push_back(KeptSizes.back());
  }
  std::vector<int64_t> OutStrides = contiguousStrides(KeptSizes);
  for (size_t D = 0; D < In.size(); ++D)
    if (Reduced[D])
      OutStrides[D] = 0;
  IterPlan<1> P = planStrided<1>(In, {OutStrides});
  Tensor Res = makeTensor(X.type().Elem, Out);
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    reduceTyped<R, T>(Ctx.Pool, X, P, Count, Res);
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(X.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(Res, Orig));
  return llvm::Error::success();
}

} // namespace

void registerReductionKernels() {
  registerKernel("reduce_sum", reduceKernel<Reduce::Sum>);
  registerKernel("reduce_mean", reduceKernel<Reduce::Mean>);
  registerKernel("reduce_max", reduceKernel<Reduce::Max>);
  registerKernel("reduce_min", reduceKernel<Reduce::Min>);
}

} // namespace kiln
