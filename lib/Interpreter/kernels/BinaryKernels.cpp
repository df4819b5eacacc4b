// Numpy-broadcast binary kernels (add, sub, mul, div, min, max, pow, prelu),
// comparisons (bool results) and where. They share one broadcast driver that
// walks the output in contiguous rows (IterPlan), with inner loops
// specialized for same-shape and scalar operands so the compiler vectorizes
// them. Integer arithmetic wraps like numpy; integer division truncates like
// C (ONNX) and reports division by zero instead of crashing. add applies
// its fused activation (FusedActivation.h) to the sum.
#include "Interpreter/KernelSupport.h"
#include "Interpreter/kernels/FusedActivation.h"

#include "IR/ShapeInference.h"

#include <cmath>

namespace kiln {

namespace {

template <typename TA, typename TB, typename TR, typename Op>
inline void binaryRow(const TA *A, int64_t SA, const TB *B, int64_t SB, TR *O,
                      int64_t Len, const Op &Fn) {
  if (SA == 1 && SB == 1) {
    for (int64_t I = 0; I < Len; ++I)
      O[I] = Fn(A[I], B[I]);
  } else if (SA == 1 && SB == 0) {
    TB V = *B;
    for (int64_t I = 0; I < Len; ++I)
      O[I] = Fn(A[I], V);
  } else if (SA == 0 && SB == 1) {
    TA V = *A;
    for (int64_t I = 0; I < Len; ++I)
      O[I] = Fn(V, B[I]);
  } else {
    for (int64_t I = 0; I < Len; ++I)
      O[I] = Fn(A[I * SA], B[I * SB]);
  }
}

/// Out = Fn(A, B) with numpy broadcasting; Out already has the result shape.
template <typename TA, typename TB, typename TR, typename Op>
void broadcastBinary(ThreadPoolRunner &Pool, const Tensor &A, const Tensor &B,
                     Tensor &Out, const Op &Fn) {
  auto P = planBroadcast<2>(sizesOf(Out), {sizesOf(A), sizesOf(B)});
  const TA *PA = dataAs<TA>(A);
  const TB *PB = dataAs<TB>(B);
  TR *PO = mutableData<TR>(Out);
  int64_t SA = P.innerStrides()[0], SB = P.innerStrides()[1];
  parallelSegments(Pool, P, [&](int64_t Pos, const std::array<int64_t, 2> &Off,
                                int64_t Len) {
    binaryRow(PA + Off[0], SA, PB + Off[1], SB, PO + Pos, Len, Fn);
  });
}

llvm::Expected<Tensor> broadcastResult(const Tensor &A, const Tensor &B,
                                       ElementType Elem) {
  auto Sizes = broadcastSizes(sizesOf(A), sizesOf(B));
  if (!Sizes)
    return inputError("shapes {0} and {1} do not broadcast",
                      toString(A.type().Dims), toString(B.type().Dims));
  return newTensor(Elem, *Sizes);
}

template <typename T> using W = WrapType<T>;

struct Add {
  template <typename T> T operator()(T a, T b) const { return T(W<T>(a) + W<T>(b)); }
};
struct Sub {
  template <typename T> T operator()(T a, T b) const { return T(W<T>(a) - W<T>(b)); }
};
struct Mul {
  template <typename T> T operator()(T a, T b) const { return T(W<T>(a) * W<T>(b)); }
};
struct Div {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_integral<T>::value && std::is_signed<T>::value)
      if (b == T(-1)) // INT_MIN / -1 would trap; -a wraps instead
        return T(W<T>(0) - W<T>(a));
    return a / b; // callers reject integer division by zero
  }
};
// Remainders; integer ones by zero are rejected before they run.
struct TruncatedMod { // C's fmod: the dividend's sign
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point<T>::value)
      return std::fmod(a, b);
    else if constexpr (std::is_signed<T>::value)
      return b == T(-1) ? T(0) : T(a % b);
    else
      return T(a % b);
  }
};
struct FlooredMod { // Python's %: the divisor's sign
  template <typename T> T operator()(T a, T b) const {
    T R = TruncatedMod()(a, b);
    if constexpr (std::is_unsigned<T>::value)
      return R;
    else
      return (R != T(0) && ((R < T(0)) != (b < T(0)))) ? T(R + b) : R;
  }
};
// NaN-propagating, like numpy.minimum / maximum.
struct Min {
  template <typename T> T operator()(T a, T b) const {
    return (a < b || isNaN(a)) ? a : b;
  }
};
struct Max {
  template <typename T> T operator()(T a, T b) const {
    return (a > b || isNaN(a)) ? a : b;
  }
};
struct PRelu {
  template <typename T> T operator()(T x, T Slope) const {
    if constexpr (std::is_unsigned<T>::value)
      return x;
    else
      return x < T(0) ? Mul()(x, Slope) : x;
  }
};

template <typename Op> llvm::Error arithKernel(KernelContext &Ctx) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor A = widenToF32(*Ctx.input(0)), B = widenToF32(*Ctx.input(1));
  if (A.type().Elem != B.type().Elem)
    return inputError("operands differ in element type: {0} and {1}",
                      toString(Ctx.input(0)->type()),
                      toString(Ctx.input(1)->type()));
  auto Out = broadcastResult(A, B, A.type().Elem);
  if (!Out)
    return Out.takeError();
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    if constexpr (std::is_integral<T>::value &&
                  (std::is_same<Op, Div>::value ||
                   std::is_same<Op, TruncatedMod>::value ||
                   std::is_same<Op, FlooredMod>::value)) {
      const T *PB = dataAs<T>(B);
      for (int64_t I = 0, E = B.numElements(); I < E; ++I)
        if (PB[I] == T(0))
          return inputError("integer division by zero");
    }
    broadcastBinary<T, T, T>(Ctx.Pool, A, B, *Out, Op());
    if constexpr (std::is_same<Op, Add>::value) {
      if constexpr (std::is_floating_point<T>::value)
        applyFusedActivation(Ctx.N, mutableData<T>(*Out), Out->numElements(),
                             Ctx.Pool);
      else if (!readFusedActivation(Ctx.N).isNone())
        return inputError("a fused activation needs a floating-point add");
    }
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(A.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(*Out, Orig));
  return llvm::Error::success();
}

struct Equal {
  template <typename T> uint8_t operator()(T a, T b) const { return a == b; }
};
struct Less {
  template <typename T> uint8_t operator()(T a, T b) const { return a < b; }
};
struct Greater {
  template <typename T> uint8_t operator()(T a, T b) const { return a > b; }
};

template <typename Op> llvm::Error compareKernel(KernelContext &Ctx) {
  Tensor A = widenToF32(*Ctx.input(0)), B = widenToF32(*Ctx.input(1));
  if (A.type().Elem != B.type().Elem)
    return inputError("operands differ in element type: {0} and {1}",
                      toString(Ctx.input(0)->type()),
                      toString(Ctx.input(1)->type()));
  auto Out = broadcastResult(A, B, ElementType::Bool);
  if (!Out)
    return Out.takeError();
  if (auto E = visitNumericOrBool(A.type().Elem, [&](auto Tag) -> llvm::Error {
        using T = typename decltype(Tag)::type;
        broadcastBinary<T, T, uint8_t>(Ctx.Pool, A, B, *Out, Op());
        return llvm::Error::success();
      }))
    return E;
  Ctx.Outputs.push_back(std::move(*Out));
  return llvm::Error::success();
}

/// Integer power by squaring, wrapping on overflow (numpy int ** int).
template <typename T> T intPow(T Base, int64_t Exp) {
  W<T> R = 1, B = W<T>(Base);
  for (uint64_t E = uint64_t(Exp); E; E >>= 1) {
    if (E & 1)
      R *= B;
    B *= B;
  }
  return T(R);
}

// pow: the result has the base's type. Float bases compute in double. An
// integer base with an integer exponent >= 0 is exact; with a negative or a
// float exponent it goes through double and truncates (ONNX Pow).
llvm::Error powKernel(KernelContext &Ctx) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor A = widenToF32(*Ctx.input(0)), Y = *Ctx.input(1);
  ElementType YE = Y.type().Elem;
  if (YE == ElementType::Bool)
    return unsupportedType(YE);
  bool IntExp = isIntegerType(A.type().Elem) && isIntegerType(YE);
  // The exponent, converted once: i64 for integer powers, else f64.
  Tensor Exp = makeTensor(IntExp ? ElementType::I64 : ElementType::F64,
                          sizesOf(Y));
  for (int64_t I = 0, E = Y.numElements(); I < E; ++I) {
    if (IntExp)
      mutableData<int64_t>(Exp)[I] = Y.asInt(I);
    else
      mutableData<double>(Exp)[I] = Y.asDouble(I);
  }
  auto Out = broadcastResult(A, Exp, A.type().Elem);
  if (!Out)
    return Out.takeError();
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    if (IntExp) {
      if constexpr (std::is_integral<T>::value)
        broadcastBinary<T, int64_t, T>(
            Ctx.Pool, A, Exp, *Out, [](T a, int64_t e) {
              return e >= 0 ? intPow(a, e)
                            : saturateCast<T>(std::trunc(std::pow(double(a), double(e))));
            });
    } else {
      broadcastBinary<T, double, T>(Ctx.Pool, A, Exp, *Out, [](T a, double e) {
        return saturateCast<T>(std::pow(double(a), e));
      });
    }
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(A.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(*Out, Orig));
  return llvm::Error::success();
}

// where(cond, a, b): moves elements by size, so it serves every dtype.
template <typename T>
void whereTyped(ThreadPoolRunner &Pool, const Tensor &C, const Tensor &A,
                const Tensor &B, Tensor &Out) {
  auto P = planBroadcast<3>(sizesOf(Out), {sizesOf(C), sizesOf(A), sizesOf(B)});
  const uint8_t *PC = dataAs<uint8_t>(C);
  const T *PA = dataAs<T>(A), *PB = dataAs<T>(B);
  T *PO = mutableData<T>(Out);
  auto St = P.innerStrides();
  parallelSegments(Pool, P, [&](int64_t Pos, const std::array<int64_t, 3> &Off,
                                int64_t Len) {
    const uint8_t *RC = PC + Off[0];
    const T *RA = PA + Off[1], *RB = PB + Off[2];
    for (int64_t I = 0; I < Len; ++I)
      PO[Pos + I] = RC[I * St[0]] ? RA[I * St[1]] : RB[I * St[2]];
  });
}

llvm::Error whereKernel(KernelContext &Ctx) {
  const Tensor &C = *Ctx.input(0), &A = *Ctx.input(1), &B = *Ctx.input(2);
  if (C.type().Elem != ElementType::Bool)
    return inputError("where condition must be bool, got {0}",
                      toString(C.type()));
  if (A.type().Elem != B.type().Elem)
    return inputError("where branches differ in element type: {0} and {1}",
                      toString(A.type()), toString(B.type()));
  auto AB = broadcastSizes(sizesOf(A), sizesOf(B));
  auto Sizes = AB ? broadcastSizes(sizesOf(C), *AB) : llvm::None;
  if (!Sizes)
    return inputError("shapes {0}, {1} and {2} do not broadcast",
                      toString(C.type().Dims), toString(A.type().Dims),
                      toString(B.type().Dims));
  auto Out = newTensor(A.type().Elem, *Sizes);
  if (!Out)
    return Out.takeError();
  switch (elementSize(A.type().Elem)) {
  case 1: whereTyped<uint8_t>(Ctx.Pool, C, A, B, *Out); break;
  case 2: whereTyped<uint16_t>(Ctx.Pool, C, A, B, *Out); break;
  case 4: whereTyped<uint32_t>(Ctx.Pool, C, A, B, *Out); break;
  default: whereTyped<uint64_t>(Ctx.Pool, C, A, B, *Out); break;
  }
  Ctx.Outputs.push_back(std::move(*Out));
  return llvm::Error::success();
}

} // namespace

void registerBinaryKernels() {
  registerKernel("add", arithKernel<Add>);
  registerKernel("sub", arithKernel<Sub>);
  registerKernel("mul", arithKernel<Mul>);
  registerKernel("div", arithKernel<Div>);
  registerKernel("mod", [](KernelContext &Ctx) {
    return Ctx.N.getInt("fmod") ? arithKernel<TruncatedMod>(Ctx)
                                : arithKernel<FlooredMod>(Ctx);
  });
  registerKernel("min", arithKernel<Min>);
  registerKernel("max", arithKernel<Max>);
  registerKernel("prelu", arithKernel<PRelu>);
  registerKernel("pow", powKernel);
  registerKernel("equal", compareKernel<Equal>);
  registerKernel("less", compareKernel<Less>);
  registerKernel("greater", compareKernel<Greater>);
  registerKernel("where", whereKernel);
}

} // namespace kiln
