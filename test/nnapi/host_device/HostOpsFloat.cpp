// The host NNAPI device: the TENSOR_FLOAT32 kernels (and QUANTIZE, whose
// input is float), NNAPI reference semantics, NHWC.
#include "BatchMatmulShape.h"
#include "ConvCommon.h"

#include <algorithm>
#include <cmath>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace {

float clampf(float X, float Lo, float Hi) { return std::min(std::max(X, Lo), Hi); }

void binaryOp(const OpContext &C) {
  const int32_t T = C.Op.Type;
  const Operand &Out = C.out();
  std::vector<size_t> IA = broadcastIndices(C.in(0).Dims, Out.Dims);
  std::vector<size_t> IB = broadcastIndices(C.in(1).Dims, Out.Dims);
  float Lo = -INFINITY, Hi = INFINITY;
  if (T == ADD || T == SUB || T == MUL || T == DIV)
    floatActivationRange(C.i32(2), Lo, Hi);
  const float *A = C.fin(0), *B = C.fin(1);
  float *O = C.fout();
  for (size_t K = 0; K < IA.size(); ++K) {
    const float X = A[IA[K]], Y = B[IB[K]];
    float R;
    switch (T) {
    case ADD: R = X + Y; break;
    case SUB: R = X - Y; break;
    case MUL: R = X * Y; break;
    case DIV: R = X / Y; break;
    case MAXIMUM: R = std::max(X, Y); break;
    case MINIMUM: R = std::min(X, Y); break;
    default: R = std::pow(X, Y); break; // POW
    }
    O[K] = clampf(R, Lo, Hi);
  }
}

void convOp(const OpContext &C) {
  const ConvParams P = convParams(C);
  const float *In = C.fin(0), *W = C.fin(1), *Bias = C.fin(2);
  float *O = C.fout();
  float Lo, Hi;
  floatActivationRange(P.Fuse, Lo, Hi);
  size_t K = 0;
  for (int64_t Nb = 0; Nb < P.N; ++Nb)
    for (int64_t Oy = 0; Oy < P.OH; ++Oy)
      for (int64_t Ox = 0; Ox < P.OW; ++Ox)
        for (int64_t Oc = 0; Oc < P.OC; ++Oc) {
          float Acc = Bias[Oc];
          forConvTaps(P, Nb, Oy, Ox, Oc,
                      [&](size_t I, size_t J) { Acc = C.mac(Acc, In[I], W[J]); });
          O[K++] = clampf(Acc, Lo, Hi);
        }
}

void fullyConnectedOp(const OpContext &C) {
  const size_t OC = C.in(1).Dims[0], Kd = C.in(1).Dims[1];
  const size_t Batch = C.in(0).elementCount() / Kd;
  const float *In = C.fin(0), *W = C.fin(1), *Bias = C.fin(2);
  float *O = C.fout();
  float Lo, Hi;
  floatActivationRange(C.i32(3), Lo, Hi);
  for (size_t B = 0; B < Batch; ++B)
    for (size_t Oc = 0; Oc < OC; ++Oc) {
      float Acc = Bias[Oc];
      for (size_t I = 0; I < Kd; ++I)
        Acc = C.mac(Acc, In[B * Kd + I], W[Oc * Kd + I]);
      O[B * OC + Oc] = clampf(Acc, Lo, Hi);
    }
}

void poolOp(const OpContext &C) {
  const PoolParams P = poolParams(C);
  const float *In = C.fin(0);
  float *O = C.fout();
  float Lo, Hi;
  floatActivationRange(P.Fuse, Lo, Hi);
  const bool Max = C.Op.Type == MAX_POOL_2D;
  forPoolWindows(P, [&](size_t K, const std::vector<size_t> &Offsets) {
    float R = Max ? -INFINITY : 0.0f;
    for (size_t I : Offsets)
      R = Max ? std::max(R, In[I]) : C.mac(R, In[I], 1.0f);
    if (!Max)
      R = Offsets.empty() ? 0.0f : R / float(Offsets.size());
    O[K] = clampf(R, Lo, Hi);
  });
}

void softmaxOp(const OpContext &C) {
  const Operand &In = C.in(0);
  const float Beta = C.f32(1);
  const AxisSplit S = splitAtAxis(In.Dims, C.inputCount() == 3 ? C.i32(2) : -1);
  const size_t Outer = S.Outer, Inner = S.Inner, N = S.Depth;
  const float *X = C.fin(0);
  float *O = C.fout();
  const bool Log = C.Op.Type == LOG_SOFTMAX;
  for (size_t A = 0; A < Outer; ++A)
    for (size_t B = 0; B < Inner; ++B) {
      auto At = [&](size_t I) { return (A * N + I) * Inner + B; };
      float Max = -INFINITY;
      for (size_t I = 0; I < N; ++I)
        Max = std::max(Max, X[At(I)]);
      double Sum = 0;
      for (size_t I = 0; I < N; ++I)
        Sum += std::exp(double(Beta) * (X[At(I)] - Max));
      for (size_t I = 0; I < N; ++I) {
        const double Z = double(Beta) * (X[At(I)] - Max);
        O[At(I)] = float(Log ? Z - std::log(Sum) : std::exp(Z) / Sum);
      }
    }
}

void reduceOp(const OpContext &C) {
  const auto Groups = reductionGroups(C.in(0).Dims, C.ints(1));
  const float *X = C.fin(0);
  float *O = C.fout();
  for (size_t K = 0; K < Groups.size(); ++K) {
    const auto &G = Groups[K];
    float R;
    switch (C.Op.Type) {
    case REDUCE_MAX:
      R = -INFINITY;
      for (size_t I : G)
        R = std::max(R, X[I]);
      break;
    case REDUCE_MIN:
      R = INFINITY;
      for (size_t I : G)
        R = std::min(R, X[I]);
      break;
    default: { // MEAN, REDUCE_SUM
      double S = 0;
      for (size_t I : G)
        S += X[I];
      R = float(C.Op.Type == MEAN ? S / double(G.size()) : S);
      break;
    }
    }
    O[K] = R;
  }
}

void preluOp(const OpContext &C) {
  std::vector<size_t> IA = broadcastIndices(C.in(1).Dims, C.out().Dims);
  const float *X = C.fin(0), *Alpha = C.fin(1);
  float *O = C.fout();
  for (size_t K = 0; K < IA.size(); ++K)
    O[K] = X[K] >= 0 ? X[K] : X[K] * Alpha[IA[K]];
}

} // namespace

namespace kiln::nnapi::host {

/// The float function of a unary operation (also used by the quantized
/// kernels, through dequantize / requantize).
float unaryFloat(int32_t Type, float X, float Alpha) {
  switch (Type) {
  case RELU: return std::max(X, 0.0f);
  case RELU1: return clampf(X, -1.0f, 1.0f);
  case RELU6: return clampf(X, 0.0f, 6.0f);
  case LOGISTIC: return 1.0f / (1.0f + std::exp(-X));
  case TANH: return std::tanh(X);
  case FLOOR: return std::floor(X);
  case ABS: return std::fabs(X);
  case EXP: return std::exp(X);
  case LOG: return std::log(X);
  case NEG: return -X;
  case SQRT: return std::sqrt(X);
  case RSQRT: return 1.0f / std::sqrt(X);
  case HARD_SWISH: return X * clampf(X + 3.0f, 0.0f, 6.0f) / 6.0f;
  case ELU: return X < 0 ? Alpha * (std::exp(X) - 1.0f) : X;
  default: return X;
  }
}

bool runFloatOperation(const OpContext &C) {
  switch (C.Op.Type) {
  case BATCH_MATMUL: {
    const BatchMatmulShape S(C);
    const float *A = C.fin(0), *B = C.fin(1);
    float *O = C.fout();
    for (size_t P = 0; P < S.Batches; ++P)
      for (size_t Row = 0; Row < S.M; ++Row)
        for (size_t Col = 0; Col < S.N; ++Col) {
          float Acc = 0.0f;
          for (size_t K = 0; K < S.K; ++K)
            Acc = C.mac(Acc, A[S.left(P, Row, K)], B[S.right(P, K, Col)]);
          O[(P * S.M + Row) * S.N + Col] = Acc;
        }
    return true;
  }
  case ADD: case SUB: case MUL: case DIV: case MAXIMUM: case MINIMUM:
  case POW:
    binaryOp(C);
    return true;
  case CONV_2D: case DEPTHWISE_CONV_2D: case GROUPED_CONV_2D:
  case TRANSPOSE_CONV_2D:
    convOp(C);
    return true;
  case FULLY_CONNECTED:
    fullyConnectedOp(C);
    return true;
  case AVERAGE_POOL_2D: case MAX_POOL_2D:
    poolOp(C);
    return true;
  case SOFTMAX: case LOG_SOFTMAX:
    softmaxOp(C);
    return true;
  case MEAN: case REDUCE_SUM: case REDUCE_MAX: case REDUCE_MIN:
    reduceOp(C);
    return true;
  case PRELU:
    preluOp(C);
    return true;
  case RELU: case RELU1: case RELU6: case LOGISTIC: case TANH: case FLOOR:
  case ABS: case EXP: case LOG: case NEG: case SQRT: case RSQRT:
  case HARD_SWISH: case ELU: {
    const float Alpha = C.Op.Type == ELU ? C.f32(1) : 0.0f;
    const float *X = C.fin(0);
    float *O = C.fout();
    for (size_t K = 0, N = C.out().elementCount(); K < N; ++K)
      O[K] = unaryFloat(C.Op.Type, X[K], Alpha);
    return true;
  }
  case QUANTIZE: {
    const Operand &Out = C.out();
    const float *X = C.fin(0);
    for (size_t K = 0, N = Out.elementCount(); K < N; ++K)
      qset(Out, C.outData(), K, quantizeValue(Out, X[K]));
    return true;
  }
  default:
    return false;
  }
}

} // namespace kiln::nnapi::host
