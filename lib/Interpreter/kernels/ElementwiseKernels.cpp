// Unary elementwise kernels: math, activations and clip. Each op is a small
// functor with a templated call operator; one driver dispatches the element
// type, runs the functor over the tensor in parallel chunks, and widens
// f16/bf16 to f32 around it. Ops that ONNX defines on integers too (relu,
// neg, abs, sign, clip) say so with Ints = true; the others accept only
// floating-point tensors. Binary ops, where and cast live in sibling files.
#include "Interpreter/KernelSupport.h"

#include <cmath>
#include <type_traits>
#include <limits>

namespace kiln {

namespace {

template <typename T> constexpr bool IsInt = std::is_integral<T>::value;

/// x < 0, without a "always false" warning for unsigned T.
template <typename T> bool isNeg(T x) {
  if constexpr (std::is_unsigned<T>::value)
    return false;
  else
    return x < T(0);
}

/// Out[i] = Fn(X[i]) for T-typed tensors, in parallel chunks.
template <typename T, typename Op>
void mapElements(ThreadPoolRunner &Pool, const Tensor &X, Tensor &Out,
                 const Op &Fn) {
  const T *In = dataAs<T>(X);
  T *O = mutableData<T>(Out);
  Pool.parallelFor(X.numElements(), ElementwiseChunk, [&](int64_t B, int64_t E) {
    for (int64_t I = B; I < E; ++I)
      O[I] = Fn(In[I]);
  });
}

template <typename Op>
llvm::Error runUnary(KernelContext &Ctx, const Op &Fn) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor X = widenToF32(*Ctx.input(0));
  Tensor Out = makeTensor(X.type().Elem, sizesOf(X));
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    if constexpr (IsInt<T> && !Op::Ints) {
      return unsupportedType(Orig);
    } else {
      mapElements<T>(Ctx.Pool, X, Out, Fn);
      return llvm::Error::success();
    }
  };
  if (auto E = visitNumeric(X.type().Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(Out, Orig));
  return llvm::Error::success();
}

// A functor for a float-only op from a generic lambda.
#define FLOAT_OP(NAME, EXPR)                                                   \
  struct NAME {                                                                \
    static constexpr bool Ints = false;                                        \
    template <typename T> T operator()(T x) const { return EXPR; }             \
  };

FLOAT_OP(Sigmoid, x >= 0 ? T(1) / (T(1) + std::exp(-x))
                         : std::exp(x) / (T(1) + std::exp(x)))
FLOAT_OP(Tanh, std::tanh(x))
FLOAT_OP(Exp, std::exp(x))
FLOAT_OP(Log, std::log(x))
FLOAT_OP(Sqrt, std::sqrt(x))
FLOAT_OP(Floor, std::floor(x))
FLOAT_OP(Ceil, std::ceil(x))
FLOAT_OP(Reciprocal, T(1) / x)
FLOAT_OP(Erf, std::erf(x))
// log(1 + e^x), without overflow for large x.
FLOAT_OP(Softplus, x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)))
FLOAT_OP(Mish, x * std::tanh(Softplus()(x)))
// ONNX HardSwish: x * max(0, min(1, x/6 + 1/2)), i.e. x * relu6(x + 3) / 6.
FLOAT_OP(HardSwish, x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5))))
#undef FLOAT_OP

struct Relu {
  static constexpr bool Ints = true;
  template <typename T> T operator()(T x) const { return isNeg(x) ? T(0) : x; }
};
struct Neg {
  static constexpr bool Ints = true;
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>)
      return -x; // IEEE negation: neg(0.0) is -0.0, as numpy
    else
      return T(WrapType<T>(0) - WrapType<T>(x)); // wraps for ints, as numpy
  }
};
struct Abs {
  static constexpr bool Ints = true;
  template <typename T> T operator()(T x) const {
    if constexpr (IsInt<T>)
      return isNeg(x) ? Neg()(x) : x;
    else
      return std::abs(x);
  }
};
struct Sign {
  static constexpr bool Ints = true;
  template <typename T> T operator()(T x) const {
    return x > T(0) ? T(1) : isNeg(x) ? T(-1) : x; // 0 and NaN stay
  }
};

struct LeakyRelu {
  static constexpr bool Ints = false;
  double Alpha;
  template <typename T> T operator()(T x) const {
    return x >= T(0) ? x : T(Alpha) * x;
  }
};
struct Elu {
  static constexpr bool Ints = false;
  double Alpha;
  template <typename T> T operator()(T x) const {
    return x > T(0) ? x : T(Alpha) * std::expm1(x);
  }
};
struct Celu {
  static constexpr bool Ints = false;
  double Alpha;
  template <typename T> T operator()(T x) const {
    return std::max(T(0), x) + std::min(T(0), T(Alpha) * std::expm1(x / T(Alpha)));
  }
};
struct Selu {
  static constexpr bool Ints = false;
  double Alpha, Gamma;
  template <typename T> T operator()(T x) const {
    return x > T(0) ? T(Gamma) * x : T(Gamma) * T(Alpha) * std::expm1(x);
  }
};
struct HardSigmoid {
  static constexpr bool Ints = false;
  double Alpha, Beta;
  template <typename T> T operator()(T x) const {
    return std::max(T(0), std::min(T(1), T(Alpha) * x + T(Beta)));
  }
};
struct Gelu {
  static constexpr bool Ints = false;
  bool TanhApprox;
  template <typename T> T operator()(T x) const {
    if (TanhApprox) // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
      return T(0.5) * x *
             (T(1) + std::tanh(T(0.7978845608028654) *
                               (x + T(0.044715) * x * x * x)));
    return T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476)));
  }
};

template <typename Op> llvm::Error simple(KernelContext &Ctx) {
  return runUnary(Ctx, Op());
}

llvm::Error identityKernel(KernelContext &Ctx) {
  Ctx.Outputs.push_back(*Ctx.input(0)); // shares the buffer
  return llvm::Error::success();
}

llvm::Error leakyReluKernel(KernelContext &Ctx) {
  return runUnary(Ctx, LeakyRelu{Ctx.N.getFloat("alpha")});
}
llvm::Error eluKernel(KernelContext &Ctx) {
  return runUnary(Ctx, Elu{Ctx.N.getFloat("alpha")});
}
llvm::Error celuKernel(KernelContext &Ctx) {
  double Alpha = Ctx.N.getFloat("alpha");
  if (Alpha == 0)
    return inputError("celu alpha must not be 0");
  return runUnary(Ctx, Celu{Alpha});
}
llvm::Error seluKernel(KernelContext &Ctx) {
  return runUnary(Ctx, Selu{Ctx.N.getFloat("alpha"), Ctx.N.getFloat("gamma")});
}
llvm::Error hardSigmoidKernel(KernelContext &Ctx) {
  return runUnary(Ctx,
                  HardSigmoid{Ctx.N.getFloat("alpha"), Ctx.N.getFloat("beta")});
}
llvm::Error geluKernel(KernelContext &Ctx) {
  const std::string &A = Ctx.N.getString("approximate");
  if (A != "none" && A != "tanh")
    return inputError("gelu approximate must be 'none' or 'tanh', got '{0}'", A);
  return runUnary(Ctx, Gelu{A == "tanh"});
}

// clip: bounds from the min/max attributes, overridden by the optional scalar
// operands (ONNX Clip-11+ passes them as inputs, of x's element type). The
// order is numpy.clip's: the lower bound, then the upper one (so Lo > Hi
// gives Hi everywhere); NaN stays NaN.
llvm::Error clipKernel(KernelContext &Ctx) {
  ElementType Orig = Ctx.input(0)->type().Elem;
  Tensor X = widenToF32(*Ctx.input(0));
  ElementType Elem = X.type().Elem;
  std::array<Tensor, 2> Bounds;
  std::array<bool, 2> Given = {false, false};
  for (unsigned I = 0; I < 2; ++I) {
    const Tensor *B = Ctx.input(I + 1);
    if (!B)
      continue;
    Given[I] = true;
    Bounds[I] = widenToF32(*B);
    if (Bounds[I].type().Elem != Elem || Bounds[I].numElements() != 1)
      return inputError("clip {0} must be one element of x's type, got {1}",
                        I ? "max" : "min", toString(B->type()));
  }
  Tensor Out = makeTensor(Elem, sizesOf(X));
  auto Body = [&](auto Tag) -> llvm::Error {
    using T = typename decltype(Tag)::type;
    T Lo = Given[0] ? Bounds[0].template at<T>(0)
                    : saturateCast<T>(Ctx.N.getFloat("min"));
    T Hi = Given[1] ? Bounds[1].template at<T>(0)
                    : saturateCast<T>(Ctx.N.getFloat("max"));
    mapElements<T>(Ctx.Pool, X, Out, [Lo, Hi](T x) {
      T Y = x < Lo ? Lo : x;
      return Y > Hi ? Hi : Y;
    });
    return llvm::Error::success();
  };
  if (auto E = visitNumeric(Elem, Body))
    return E;
  Ctx.Outputs.push_back(narrowFromF32(Out, Orig));
  return llvm::Error::success();
}

} // namespace

void registerElementwiseKernels() {
  registerKernel("relu", simple<Relu>);
  registerKernel("sigmoid", simple<Sigmoid>);
  registerKernel("tanh", simple<Tanh>);
  registerKernel("exp", simple<Exp>);
  registerKernel("log", simple<Log>);
  registerKernel("sqrt", simple<Sqrt>);
  registerKernel("neg", simple<Neg>);
  registerKernel("abs", simple<Abs>);
  registerKernel("floor", simple<Floor>);
  registerKernel("ceil", simple<Ceil>);
  registerKernel("reciprocal", simple<Reciprocal>);
  registerKernel("erf", simple<Erf>);
  registerKernel("softplus", simple<Softplus>);
  registerKernel("mish", simple<Mish>);
  registerKernel("hard_swish", simple<HardSwish>);
  registerKernel("sign", simple<Sign>);
  registerKernel("identity", identityKernel);
  registerKernel("leaky_relu", leakyReluKernel);
  registerKernel("elu", eluKernel);
  registerKernel("celu", celuKernel);
  registerKernel("selu", seluKernel);
  registerKernel("hard_sigmoid", hardSigmoidKernel);
  registerKernel("gelu", geluKernel);
  registerKernel("clip", clipKernel);
  registerBinaryKernels();
  registerCastKernels();
}

} // namespace kiln
