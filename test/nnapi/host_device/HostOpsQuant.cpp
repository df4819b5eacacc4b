// The host NNAPI device: the quantized kernels (TENSOR_QUANT8_ASYMM and
// TENSOR_QUANT8_ASYMM_SIGNED activations), with the fixed-point arithmetic
// of TFLite's reference kernels where NNAPI's reference driver uses it
// (LOGISTIC, TANH, SOFTMAX and HARD_SWISH: HostOpsQuantActivations.cpp).
#include "BatchMatmulShape.h"
#include "ConvCommon.h"
#include "QuantMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kiln::nnapi;
using namespace kiln::nnapi::host;

namespace {

float dequant(const Operand &O, const uint8_t *D, size_t I) {
  return float(qget(O, D, I) - O.ZeroPoint) * O.Scale;
}

/// ADD and SUB: TFLite's reference (left shift 20, both inputs rescaled to
/// twice the larger scale).
void addSubOp(const OpContext &C) {
  const Operand &A = C.in(0), &B = C.in(1), &Out = C.out();
  const int LeftShift = 20;
  const double TwiceMax = 2.0 * std::max(double(A.Scale), double(B.Scale));
  const Requantizer MA(double(A.Scale) / TwiceMax);
  const Requantizer MB(double(B.Scale) / TwiceMax);
  const Requantizer MO(TwiceMax / (double(1 << LeftShift) * double(Out.Scale)));
  int32_t Lo, Hi;
  quantActivationRange(C.i32(2), Out, Lo, Hi);
  std::vector<size_t> IA = broadcastIndices(A.Dims, Out.Dims);
  std::vector<size_t> IB = broadcastIndices(B.Dims, Out.Dims);
  const bool Sub = C.Op.Type == SUB;
  for (size_t K = 0; K < IA.size(); ++K) {
    const int32_t X = (qget(A, C.inData(0), IA[K]) - A.ZeroPoint) * (1 << LeftShift);
    const int32_t Y = (qget(B, C.inData(1), IB[K]) - B.ZeroPoint) * (1 << LeftShift);
    const int32_t SX = MA(X), SY = MB(Y);
    const int32_t Raw = MO.withZeroPoint(
        Sub ? int64_t(SX) - SY : int64_t(SX) + SY, Out.ZeroPoint);
    qset(Out, C.outData(), K, std::clamp(Raw, Lo, Hi));
  }
}

/// AOSP's multiplier of a product of scales (GetQuantizedConvolutionMultipler,
/// mulQuant8): the product in float, widened, then divided in double.
double productMultiplier(float A, float B, float Out) {
  const float Product = A * B;
  return double(Product) / double(Out);
}

void mulOp(const OpContext &C) {
  const Operand &A = C.in(0), &B = C.in(1), &Out = C.out();
  const Requantizer M(productMultiplier(A.Scale, B.Scale, Out.Scale));
  int32_t Lo, Hi;
  quantActivationRange(C.i32(2), Out, Lo, Hi);
  std::vector<size_t> IA = broadcastIndices(A.Dims, Out.Dims);
  std::vector<size_t> IB = broadcastIndices(B.Dims, Out.Dims);
  for (size_t K = 0; K < IA.size(); ++K) {
    const int32_t X = qget(A, C.inData(0), IA[K]) - A.ZeroPoint;
    const int32_t Y = qget(B, C.inData(1), IB[K]) - B.ZeroPoint;
    qset(Out, C.outData(), K, std::clamp(M.withZeroPoint(int64_t(X) * Y, Out.ZeroPoint), Lo, Hi));
  }
}

void maxMinOp(const OpContext &C) {
  const Operand &A = C.in(0), &B = C.in(1), &Out = C.out();
  std::vector<size_t> IA = broadcastIndices(A.Dims, Out.Dims);
  std::vector<size_t> IB = broadcastIndices(B.Dims, Out.Dims);
  const bool Max = C.Op.Type == MAXIMUM;
  for (size_t K = 0; K < IA.size(); ++K) {
    const float X = dequant(A, C.inData(0), IA[K]);
    const float Y = dequant(B, C.inData(1), IB[K]);
    qset(Out, C.outData(), K, quantizeValue(Out, Max ? std::max(X, Y) : std::min(X, Y)));
  }
}

/// The multiplier of output channel Oc: in_scale * w_scale[c] / out_scale.
std::vector<Requantizer> channelMultipliers(const Operand &In, const Operand &W,
                                            const Operand &Out, size_t OC) {
  std::vector<Requantizer> M;
  M.reserve(OC);
  for (size_t Oc = 0; Oc < OC; ++Oc) {
    const float WS = W.Type == TENSOR_QUANT8_SYMM_PER_CHANNEL
                         ? W.ChannelScales[Oc]
                         : W.Scale;
    M.emplace_back(productMultiplier(In.Scale, WS, Out.Scale));
  }
  return M;
}

void convOp(const OpContext &C) {
  const ConvParams P = convParams(C);
  const Operand &In = C.in(0), &W = C.in(1), &Out = C.out();
  const int32_t *Bias = reinterpret_cast<const int32_t *>(C.inData(2));
  const int32_t WZp = W.Type == TENSOR_QUANT8_SYMM_PER_CHANNEL ? 0 : W.ZeroPoint;
  const std::vector<Requantizer> M = channelMultipliers(In, W, Out, size_t(P.OC));
  int32_t Lo, Hi;
  quantActivationRange(P.Fuse, Out, Lo, Hi);
  const uint8_t *X = C.inData(0), *F = C.inData(1);
  size_t K = 0;
  for (int64_t Nb = 0; Nb < P.N; ++Nb)
    for (int64_t Oy = 0; Oy < P.OH; ++Oy)
      for (int64_t Ox = 0; Ox < P.OW; ++Ox)
        for (int64_t Oc = 0; Oc < P.OC; ++Oc) {
          int64_t Acc = 0;
          forConvTaps(P, Nb, Oy, Ox, Oc, [&](size_t I, size_t J) {
            Acc += (qget(In, X, I) - In.ZeroPoint) * (qget(W, F, J) - WZp);
          });
          Acc += Bias[Oc];
          qset(Out, C.outData(), K++,
               std::clamp(M[size_t(Oc)].withZeroPoint(Acc, Out.ZeroPoint), Lo, Hi));
        }
}

void fullyConnectedOp(const OpContext &C) {
  const Operand &In = C.in(0), &W = C.in(1), &Out = C.out();
  const size_t OC = W.Dims[0], Kd = W.Dims[1];
  const size_t Batch = In.elementCount() / Kd;
  const int32_t *Bias = reinterpret_cast<const int32_t *>(C.inData(2));
  const Requantizer M(productMultiplier(In.Scale, W.Scale, Out.Scale));
  int32_t Lo, Hi;
  quantActivationRange(C.i32(3), Out, Lo, Hi);
  for (size_t B = 0; B < Batch; ++B)
    for (size_t Oc = 0; Oc < OC; ++Oc) {
      int64_t Acc = Bias[Oc];
      for (size_t I = 0; I < Kd; ++I)
        Acc += (qget(In, C.inData(0), B * Kd + I) - In.ZeroPoint) *
               (qget(W, C.inData(1), Oc * Kd + I) - W.ZeroPoint);
      qset(Out, C.outData(), B * OC + Oc,
           std::clamp(M.withZeroPoint(Acc, Out.ZeroPoint), Lo, Hi));
    }
}

void poolOp(const OpContext &C) {
  const PoolParams P = poolParams(C);
  const Operand &In = C.in(0), &Out = C.out();
  int32_t Lo, Hi;
  quantActivationRange(P.Fuse, Out, Lo, Hi);
  const bool Max = C.Op.Type == MAX_POOL_2D;
  forPoolWindows(P, [&](size_t K, const std::vector<size_t> &Offsets) {
    int32_t R;
    if (Max) {
      R = std::numeric_limits<int32_t>::min();
      for (size_t I : Offsets)
        R = std::max(R, qget(In, C.inData(0), I));
    } else {
      // The raw values (output params equal the input's), rounded half
      // away from zero, as TFLite's reference.
      int32_t Sum = 0;
      for (size_t I : Offsets)
        Sum += qget(In, C.inData(0), I);
      const int32_t N = int32_t(std::max<size_t>(Offsets.size(), 1));
      R = Sum >= 0 ? (Sum + N / 2) / N : (Sum - N / 2) / N;
    }
    qset(Out, C.outData(), K, std::clamp(R, Lo, Hi));
  });
}

/// Dequantize, the float kernel's function, requantize.
template <typename Fn> void throughFloat(const OpContext &C, Fn F) {
  const Operand &In = C.in(0), &Out = C.out();
  for (size_t K = 0, N = Out.elementCount(); K < N; ++K)
    qset(Out, C.outData(), K, quantizeValue(Out, F(dequant(In, C.inData(0), K), K)));
}

/// The RELU family: the output has the input's parameters (validation), so
/// a clamp of the raw values, as AOSP's Activation.cpp.
void unaryOp(const OpContext &C) {
  const int32_t T = C.Op.Type;
  const Operand &In = C.in(0), &Out = C.out();
  int32_t Lo, Hi;
  quantActivationRange(T == RELU ? FUSED_RELU : T == RELU1 ? FUSED_RELU1 : FUSED_RELU6,
                       Out, Lo, Hi);
  for (size_t K = 0, N = Out.elementCount(); K < N; ++K)
    qset(Out, C.outData(), K, std::clamp(qget(In, C.inData(0), K), Lo, Hi));
}

void reduceOp(const OpContext &C) {
  const Operand &In = C.in(0), &Out = C.out();
  const auto Groups = reductionGroups(In.Dims, C.ints(1));
  for (size_t K = 0; K < Groups.size(); ++K) {
    const auto &G = Groups[K];
    if (C.Op.Type == MEAN) {
      // AOSP (SimpleMath.cpp -> TFLite reference_ops::Mean<T, int32_t>):
      // the raw values, zero point included, summed in integers and divided
      // by the count with C++ truncation; the output keeps the input's
      // parameters (validation refuses others).
      int64_t S = 0;
      for (size_t I : G)
        S += qget(In, C.inData(0), I);
      qset(Out, C.outData(), K, int32_t(S / int64_t(G.size())));
      continue;
    }
    int32_t R = qget(In, C.inData(0), G[0]);
    for (size_t I : G)
      R = C.Op.Type == REDUCE_MAX ? std::max(R, qget(In, C.inData(0), I))
                                  : std::min(R, qget(In, C.inData(0), I));
    qset(Out, C.outData(), K, R);
  }
}

void preluOp(const OpContext &C) {
  const Operand &Alpha = C.in(1);
  std::vector<size_t> IA = broadcastIndices(Alpha.Dims, C.out().Dims);
  throughFloat(C, [&](float X, size_t K) {
    return X >= 0 ? X : X * dequant(Alpha, C.inData(1), IA[K]);
  });
}

} // namespace

namespace kiln::nnapi::host {

bool runQuantOperation(const OpContext &C) {
  if (runQuantActivation(C))
    return true;
  switch (C.Op.Type) {
  case BATCH_MATMUL: {
    // TFLite's reference BatchMatMul<int8_t, int32_t>: products of the
    // zero-point-free values summed in int32, requantized by
    // s_a s_b / s_out, saturated to int8 (no fused activation).
    const BatchMatmulShape S(C);
    const Operand &A = C.in(0), &B = C.in(1), &Out = C.out();
    const Requantizer Q(productMultiplier(A.Scale, B.Scale, Out.Scale));
    for (size_t P = 0; P < S.Batches; ++P)
      for (size_t Row = 0; Row < S.M; ++Row)
        for (size_t Col = 0; Col < S.N; ++Col) {
          int64_t Acc = 0;
          for (size_t K = 0; K < S.K; ++K)
            Acc += (qget(A, C.inData(0), S.left(P, Row, K)) - A.ZeroPoint) *
                   (qget(B, C.inData(1), S.right(P, K, Col)) - B.ZeroPoint);
          qset(Out, C.outData(), (P * S.M + Row) * S.N + Col,
               std::clamp(Q.withZeroPoint(Acc, Out.ZeroPoint), -128, 127));
        }
    return true;
  }
  case ADD: case SUB:
    addSubOp(C);
    return true;
  case MUL:
    mulOp(C);
    return true;
  case MAXIMUM: case MINIMUM:
    maxMinOp(C);
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
  case RELU: case RELU1: case RELU6:
    unaryOp(C);
    return true;
  case MEAN: case REDUCE_MAX: case REDUCE_MIN:
    reduceOp(C);
    return true;
  case PRELU:
    preluOp(C);
    return true;
  case DEQUANTIZE: {
    const Operand &In = C.in(0);
    float *O = C.fout();
    for (size_t K = 0, N = In.elementCount(); K < N; ++K)
      O[K] = dequant(In, C.inData(0), K);
    return true;
  }
  default:
    return false;
  }
}

} // namespace kiln::nnapi::host
