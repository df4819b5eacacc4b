// Reference elementwise kernels: BINARY with numpy broadcasting (f32, and
// i32/i64 with wrapping arithmetic and division by zero giving 0, never a
// trap; comparisons give BOOL), SELECT, UNARY on f32 (the IR interpreter's
// formulas), SOFTMAX along any axis, and PRELU along the last axis.
#include "cpu/reference/ReferenceKernels.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace kiln::rt::ref {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &Shape) {
  std::vector<int64_t> S(Shape.size(), 1);
  for (size_t I = Shape.size(); I-- > 1;)
    S[I - 1] = S[I] * Shape[I];
  return S;
}

namespace {

/// Strides of T's dims aligned to a result of rank Rank, 0 where T
/// broadcasts (size-1 or missing dims).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &Shape,
                                      size_t Rank) {
  std::vector<int64_t> Own = contiguousStrides(Shape), S(Rank, 0);
  size_t Offset = Rank - Shape.size();
  for (size_t I = 0; I < Shape.size(); ++I)
    S[I + Offset] = Shape[I] == 1 ? 0 : Own[I];
  return S;
}

template <typename T> T applyBinary(fb::BinaryOp Op, T A, T B) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (Op) {
    case fb::BinaryOp::ADD: return A + B;
    case fb::BinaryOp::SUB: return A - B;
    case fb::BinaryOp::MUL: return A * B;
    case fb::BinaryOp::DIV: return A / B;
    case fb::BinaryOp::MAXIMUM: return std::max(A, B);
    case fb::BinaryOp::MINIMUM: return std::min(A, B);
    case fb::BinaryOp::POW: return std::pow(A, B);
    default: return 0;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (Op) {
    case fb::BinaryOp::ADD: return T(U(A) + U(B));
    case fb::BinaryOp::SUB: return T(U(A) - U(B));
    case fb::BinaryOp::MUL: return T(U(A) * U(B));
    case fb::BinaryOp::DIV:
      if (B == 0)
        return 0;
      if (B == -1)
        return T(U(0) - U(A)); // also defined for the minimum value
      return A / B;
    case fb::BinaryOp::MAXIMUM: return std::max(A, B);
    case fb::BinaryOp::MINIMUM: return std::min(A, B);
    default: return 0;
    }
  }
}

/// Y[i] = F(A[a(i)], B[b(i)]) with numpy broadcasting, for result type U.
template <typename T, typename U, typename Fn>
RunFn broadcastBinary(const KernelArgs &A, Fn F) {
  const std::vector<int64_t> &YShape = A.Out[0].shape();
  size_t Rank = YShape.size();
  std::vector<int64_t> SA = broadcastStrides(A.In[0].shape(), Rank),
                       SB = broadcastStrides(A.In[1].shape(), Rank);
  const T *Pa = A.In[0].as<const T>(), *Pb = A.In[1].as<const T>();
  U *Py = A.Out[0].as<U>();
  uint64_t Total = A.Out[0].elements();
  return [=]() {
    if (Total == 0)
      return Status::ok();
    int64_t Inner = Rank ? YShape[Rank - 1] : 1;
    int64_t IA = Rank ? SA[Rank - 1] : 0, IB = Rank ? SB[Rank - 1] : 0;
    std::vector<int64_t> Index(Rank ? Rank - 1 : 0, 0);
    int64_t OffA = 0, OffB = 0;
    for (uint64_t Done = 0; Done < Total; Done += uint64_t(Inner)) {
      U *Out = Py + Done;
      for (int64_t J = 0; J < Inner; ++J)
        Out[J] = F(Pa[OffA + J * IA], Pb[OffB + J * IB]);
      // Next row: odometer over the outer dims.
      for (size_t D = Index.size(); D-- > 0;) {
        OffA += SA[D];
        OffB += SB[D];
        if (++Index[D] < YShape[D])
          break;
        OffA -= SA[D] * YShape[D];
        OffB -= SB[D] * YShape[D];
        Index[D] = 0;
      }
    }
    return Status::ok();
  };
}

template <typename T>
RunFn binaryOf(const KernelArgs &A, fb::BinaryOp Op, float Lo, float Hi) {
  switch (Op) {
  case fb::BinaryOp::EQUAL:
    return broadcastBinary<T, uint8_t>(A, [](T X, T Y) { return uint8_t(X == Y); });
  case fb::BinaryOp::GREATER:
    return broadcastBinary<T, uint8_t>(A, [](T X, T Y) { return uint8_t(X > Y); });
  case fb::BinaryOp::LESS:
    return broadcastBinary<T, uint8_t>(A, [](T X, T Y) { return uint8_t(X < Y); });
  default:
    break;
  }
  bool Clamp = std::is_floating_point_v<T> &&
               (Lo != -std::numeric_limits<float>::infinity() ||
                Hi != std::numeric_limits<float>::infinity());
  return broadcastBinary<T, T>(A, [=](T X, T Y) {
    T V = applyBinary<T>(Op, X, Y);
    if constexpr (std::is_floating_point_v<T>)
      if (Clamp)
        V = clampValue(V, Lo, Hi);
    return V;
  });
}

/// Y = Cond ? A : B with three-way broadcasting, moving Word-sized elements.
template <typename Word> RunFn selectOf(const KernelArgs &A) {
  const std::vector<int64_t> &YShape = A.Out[0].shape();
  size_t Rank = YShape.size();
  std::vector<int64_t> SC = broadcastStrides(A.In[0].shape(), Rank),
                       SA = broadcastStrides(A.In[1].shape(), Rank),
                       SB = broadcastStrides(A.In[2].shape(), Rank);
  const uint8_t *Pc = A.In[0].as<const uint8_t>();
  const Word *Pa = A.In[1].as<const Word>(), *Pb = A.In[2].as<const Word>();
  Word *Py = A.Out[0].as<Word>();
  uint64_t Total = A.Out[0].elements();
  return [=]() {
    std::vector<int64_t> Index(Rank, 0);
    int64_t Oc = 0, Oa = 0, Ob = 0;
    for (uint64_t I = 0; I < Total; ++I) {
      Py[I] = Pc[Oc] ? Pa[Oa] : Pb[Ob];
      for (size_t D = Rank; D-- > 0;) {
        Oc += SC[D], Oa += SA[D], Ob += SB[D];
        if (++Index[D] < YShape[D])
          break;
        Oc -= SC[D] * YShape[D], Oa -= SA[D] * YShape[D],
            Ob -= SB[D] * YShape[D];
        Index[D] = 0;
      }
    }
    return Status::ok();
  };
}

float softplus(float X) {
  return X > 0 ? X + std::log1p(std::exp(-X)) : std::log1p(std::exp(X));
}

} // namespace

float applyUnary(fb::UnaryOp Op, float X, float Alpha, float Beta,
                 float Gamma, float Lo, float Hi) {
  using U = fb::UnaryOp;
  switch (Op) {
  case U::CLAMP: return clampValue(X, Lo, Hi);
  case U::ABS: return std::fabs(X);
  case U::NEG: return -X;
  case U::FLOOR: return std::floor(X);
  case U::CEIL: return std::ceil(X);
  case U::SQRT: return std::sqrt(X);
  case U::EXP: return std::exp(X);
  case U::LOG: return std::log(X);
  case U::TANH: return std::tanh(X);
  case U::SIGMOID:
    return X >= 0 ? 1.0f / (1.0f + std::exp(-X))
                  : std::exp(X) / (1.0f + std::exp(X));
  case U::ERF: return std::erf(X);
  case U::RECIPROCAL: return 1.0f / X;
  case U::SIGN: return X > 0 ? 1.0f : (X < 0 ? -1.0f : X);
  case U::LEAKY_RELU: return X >= 0 ? X : Alpha * X;
  case U::ELU: return X > 0 ? X : Alpha * std::expm1(X);
  case U::SELU: return X > 0 ? Gamma * X : Gamma * Alpha * std::expm1(X);
  case U::CELU:
    return std::max(0.0f, X) + std::min(0.0f, Alpha * std::expm1(X / Alpha));
  case U::HARD_SIGMOID:
    return std::max(0.0f, std::min(1.0f, Alpha * X + Beta));
  case U::HARD_SWISH:
    return X * std::max(0.0f, std::min(1.0f, X / 6.0f + 0.5f));
  case U::GELU: return 0.5f * X * (1.0f + std::erf(X * 0.7071067811865476f));
  case U::GELU_TANH:
    return 0.5f * X *
           (1.0f + std::tanh(0.7978845608028654f * (X + 0.044715f * X * X * X)));
  case U::SOFTPLUS: return softplus(X);
  case U::MISH: return X * std::tanh(softplus(X));
  case U::SQUARE: return X * X;
  case U::ROUND: return std::nearbyint(X);
  case U::SILU: return X / (1 + std::exp(-X));
  case U::UNKNOWN: break;
  }
  return X;
}

RunFn binary(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_BinaryOptions();
  switch (A.In[0].Desc->DType) {
  case fb::DType::I32:
    return binaryOf<int32_t>(A, O.op(), O.output_min(), O.output_max());
  case fb::DType::I64:
    return binaryOf<int64_t>(A, O.op(), O.output_min(), O.output_max());
  default:
    return binaryOf<float>(A, O.op(), O.output_min(), O.output_max());
  }
}

RunFn select(const KernelArgs &A) {
  switch (dtypeSize(A.Out[0].Desc->DType)) {
  case 1: return selectOf<uint8_t>(A);
  case 2: return selectOf<uint16_t>(A);
  case 4: return selectOf<uint32_t>(A);
  default: return selectOf<uint64_t>(A);
  }
}

RunFn unary(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_UnaryOptions();
  fb::UnaryOp Op = O.op();
  float Alpha = O.alpha(), Beta = O.beta(), Gamma = O.gamma(), Lo = O.min(),
        Hi = O.max();
  const float *X = A.In[0].as<const float>();
  float *Y = A.Out[0].as<float>();
  uint64_t Count = A.In[0].elements();
  return [=]() {
    for (uint64_t I = 0; I < Count; ++I)
      Y[I] = applyUnary(Op, X[I], Alpha, Beta, Gamma, Lo, Hi);
    return Status::ok();
  };
}

RunFn softmax(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_SoftmaxOptions();
  const std::vector<int64_t> &Shape = A.In[0].shape();
  size_t Axis = size_t(O.axis());
  int64_t Outer = 1, Len = Shape[Axis], Inner = 1;
  for (size_t I = 0; I < Axis; ++I)
    Outer *= Shape[I];
  for (size_t I = Axis + 1; I < Shape.size(); ++I)
    Inner *= Shape[I];
  bool Log = O.log();
  const float *X = A.In[0].as<const float>();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    for (int64_t P = 0; P < Outer; ++P)
      for (int64_t Q = 0; Q < Inner; ++Q) {
        const float *In = X + P * Len * Inner + Q;
        float *Out = Y + P * Len * Inner + Q;
        float Max = -std::numeric_limits<float>::infinity();
        for (int64_t I = 0; I < Len; ++I)
          Max = std::max(Max, In[I * Inner]);
        double Sum = 0;
        for (int64_t I = 0; I < Len; ++I)
          Sum += std::exp(double(In[I * Inner] - Max));
        for (int64_t I = 0; I < Len; ++I) {
          float Shifted = In[I * Inner] - Max;
          Out[I * Inner] = Log ? float(Shifted - std::log(Sum))
                               : float(std::exp(double(Shifted)) / Sum);
        }
      }
    return Status::ok();
  };
}

RunFn prelu(const KernelArgs &A) {
  const float *X = A.In[0].as<const float>(), *S = A.In[1].as<const float>();
  float *Y = A.Out[0].as<float>();
  int64_t C = A.In[0].shape().back();
  uint64_t Count = A.In[0].elements();
  return [=]() {
    for (uint64_t I = 0; I < Count; ++I) {
      float V = X[I];
      Y[I] = V >= 0 ? V : S[int64_t(I) % C] * V;
    }
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
