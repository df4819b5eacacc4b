// Reference int8 kernels (schema 1.2), the engine fallback of the qs8/qc8
// operators: convolution (depthwise too) and fully connected accumulate
// (x - x_zp) * w in int32 with the int32 bias, then requantize with
// y = clamp(round_half_even(acc * x_scale * w_scale[c] / y_scale) + y_zp),
// computed in float like XNNPACK's fp32 requantization; MATMUL of two
// activations the same with (a - a_zp)(b - b_zp) and a_scale b_scale; ADD and MUL
// requantize the sum or product of the operands' real values; a UNARY op
// is a 256-entry table of its f32 function on every input value,
// requantized; max pooling moves values; global average pooling averages
// (x - x_zp) and requantizes; QUANTIZE/DEQUANTIZE convert.
#include "PoolHandOff.h"
#include "cpu/reference/ReferenceKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

namespace kiln::rt::ref {

namespace {

int8_t saturate(float V) {
  return int8_t(std::min(127.0f, std::max(-128.0f, V)));
}

/// The int8 bounds of the real output range [Min, Max] (-inf/+inf: the
/// whole int8 range).
std::pair<int8_t, int8_t> quantizedRange(float Min, float Max, float Scale,
                                         int64_t Zero) {
  auto Q = [&](float V, int8_t Inf) {
    if (std::isinf(V))
      return Inf;
    return saturate(std::nearbyint(V / Scale) + float(Zero));
  };
  return {Q(Min, int8_t(-128)), Q(Max, int8_t(127))};
}

int8_t requantize(int32_t Acc, float Multiplier, int64_t Zero, int8_t Lo,
                  int8_t Hi) {
  float V = std::nearbyint(float(Acc) * Multiplier) + float(Zero);
  return std::min(Hi, std::max(Lo, saturate(V)));
}

/// What a convolution or fully connected operator (x in A.In[0], per-channel
/// weights in A.In[1], optional int32 bias in A.In[2], y in A.Out[0]) needs
/// to turn its int32 accumulators into y.
struct Requantization {
  int32_t XZero;
  const int32_t *Bias; // null when absent
  std::vector<float> Multiplier; // x_scale * w_scale[c] / y_scale
  int64_t YZero;
  int8_t Lo, Hi;

  int32_t start(int64_t C) const { return Bias ? Bias[C] : 0; }
  int8_t apply(int32_t Acc, int64_t C) const {
    return requantize(Acc, Multiplier[size_t(C)], YZero, Lo, Hi);
  }
};

Requantization requantizationOf(const KernelArgs &A, int64_t OC,
                                float OutputMin, float OutputMax) {
  const TensorDesc &X = *A.In[0].Desc, &W = *A.In[1].Desc, &Y = *A.Out[0].Desc;
  Requantization R;
  R.XZero = int32_t(X.ZeroPoints[0]);
  R.Bias = A.In.size() > 2 && A.In[2].present() ? A.In[2].as<const int32_t>()
                                                : nullptr;
  R.Multiplier.resize(size_t(OC));
  for (int64_t C = 0; C < OC; ++C)
    R.Multiplier[size_t(C)] = X.Scales[0] * W.Scales[size_t(C)] / Y.Scales[0];
  R.YZero = Y.ZeroPoints[0];
  std::tie(R.Lo, R.Hi) =
      quantizedRange(OutputMin, OutputMax, Y.Scales[0], R.YZero);
  return R;
}

} // namespace

RunFn int8Conv2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  const KernelTensor &Xt = A.In[0], &Wt = A.In[1], &Yt = A.Out[0];
  int64_t N = Xt.dim(0), H = Xt.dim(1), W = Xt.dim(2), C = Xt.dim(3);
  int64_t OH = Yt.dim(1), OW = Yt.dim(2), OC = Yt.dim(3);
  int64_t KH = O.kernel_height(), KW = O.kernel_width();
  int64_t SH = O.stride_height(), SW = O.stride_width();
  int64_t DH = O.dilation_height(), DW = O.dilation_width();
  int64_t PT = O.padding_top(), PL = O.padding_left();
  int64_t GroupIn = O.group_input_channels(), GroupOut = O.group_output_channels();
  bool Depthwise = O.depthwise();
  Requantization Q = requantizationOf(A, OC, O.output_min(), O.output_max());
  int32_t XZero = Q.XZero;
  const int8_t *X = Xt.as<const int8_t>(), *Wp = Wt.as<const int8_t>();
  int8_t *Y = Yt.as<int8_t>();
  return [=]() {
    for (int64_t Bn = 0; Bn < N; ++Bn)
      for (int64_t OY = 0; OY < OH; ++OY)
        for (int64_t OX = 0; OX < OW; ++OX)
          for (int64_t K = 0; K < OC; ++K) {
            int64_t Group = K / GroupOut;
            int32_t Acc = Q.start(K);
            for (int64_t KY = 0; KY < KH; ++KY) {
              int64_t IY = OY * SH - PT + KY * DH;
              if (IY < 0 || IY >= H)
                continue;
              for (int64_t KX = 0; KX < KW; ++KX) {
                int64_t IX = OX * SW - PL + KX * DW;
                if (IX < 0 || IX >= W)
                  continue;
                const int8_t *In = X + ((Bn * H + IY) * W + IX) * C + Group * GroupIn;
                if (Depthwise) {
                  Acc += (int32_t(In[0]) - XZero) * Wp[(KY * KW + KX) * OC + K];
                  continue;
                }
                const int8_t *Wr = Wp + ((K * KH + KY) * KW + KX) * GroupIn;
                for (int64_t IC = 0; IC < GroupIn; ++IC)
                  Acc += (int32_t(In[IC]) - XZero) * Wr[IC];
              }
            }
            Y[((Bn * OH + OY) * OW + OX) * OC + K] = Q.apply(Acc, K);
          }
    return Status::ok();
  };
}

RunFn int8MatMul(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_MatMulOptions();
  MatMulBatches B(A.In[0], A.In[1], A.Out[0]);
  const TensorDesc &AD = *A.In[0].Desc, &BD = *A.In[1].Desc, &YD = *A.Out[0].Desc;
  const int32_t AZero = int32_t(AD.ZeroPoints[0]), BZero = int32_t(BD.ZeroPoints[0]);
  const float Multiplier = AD.Scales[0] * BD.Scales[0] / YD.Scales[0];
  const int64_t YZero = YD.ZeroPoints[0];
  const auto [Lo, Hi] =
      quantizedRange(O.output_min(), O.output_max(), YD.Scales[0], YZero);
  const int8_t *Pa = A.In[0].as<const int8_t>(), *Pb = A.In[1].as<const int8_t>();
  int8_t *Py = A.Out[0].as<int8_t>();
  return [=]() {
    const int64_t M = B.M, N = B.N, K = B.K;
    B.forEach([&](int64_t OffA, int64_t OffB, int64_t OffY) {
      for (int64_t I = 0; I < M; ++I)
        for (int64_t J = 0; J < N; ++J) {
          int32_t Acc = 0;
          for (int64_t P = 0; P < K; ++P)
            Acc += (int32_t(Pa[OffA + I * K + P]) - AZero) *
                   (int32_t(Pb[OffB + P * N + J]) - BZero);
          Py[OffY + I * N + J] = requantize(Acc, Multiplier, YZero, Lo, Hi);
        }
    });
    return Status::ok();
  };
}

RunFn int8FullyConnected(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_FullyConnectedOptions();
  const KernelTensor &Xt = A.In[0], &Wt = A.In[1], &Yt = A.Out[0];
  int64_t K = Wt.dim(1), OC = Wt.dim(0);
  int64_t Rows = K ? int64_t(Xt.elements()) / K : 0;
  Requantization Q = requantizationOf(A, OC, O.output_min(), O.output_max());
  int32_t XZero = Q.XZero;
  const int8_t *X = Xt.as<const int8_t>(), *Wp = Wt.as<const int8_t>();
  int8_t *Y = Yt.as<int8_t>();
  return [=]() {
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t C = 0; C < OC; ++C) {
        int32_t Acc = Q.start(C);
        for (int64_t I = 0; I < K; ++I)
          Acc += (int32_t(X[R * K + I]) - XZero) * Wp[C * K + I];
        Y[R * OC + C] = Q.apply(Acc, C);
      }
    return Status::ok();
  };
}

RunFn int8Binary(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_BinaryOptions();
  bool Mul = O.op() == fb::BinaryOp::MUL;
  const KernelTensor &At = A.In[0], &Bt = A.In[1], &Yt = A.Out[0];
  float SA = At.Desc->Scales[0], SB = Bt.Desc->Scales[0], SY = Yt.Desc->Scales[0];
  int64_t ZA = At.Desc->ZeroPoints[0], ZB = Bt.Desc->ZeroPoints[0],
          ZY = Yt.Desc->ZeroPoints[0];
  auto [Lo, Hi] = quantizedRange(O.output_min(), O.output_max(), SY, ZY);
  std::vector<int64_t> YS = Yt.shape(), AS = At.shape(), BS = Bt.shape();
  const int8_t *Ap = At.as<const int8_t>(), *Bp = Bt.as<const int8_t>();
  int8_t *Y = Yt.as<int8_t>();
  // Broadcast strides of each operand over Y's dims (0 where it is 1).
  auto stridesOver = [&](const std::vector<int64_t> &S) {
    std::vector<int64_t> St(YS.size(), 0);
    int64_t Stride = 1;
    for (size_t I = 0; I < S.size(); ++I) {
      size_t D = S.size() - 1 - I, YD = YS.size() - 1 - I;
      St[YD] = S[D] == 1 ? 0 : Stride;
      Stride *= S[D];
    }
    return St;
  };
  std::vector<int64_t> SAs = stridesOver(AS), SBs = stridesOver(BS);
  return [=, Lo = Lo, Hi = Hi]() {
    int64_t Total = 1;
    for (int64_t D : YS)
      Total *= D;
    std::vector<int64_t> Idx(YS.size(), 0);
    for (int64_t E = 0; E < Total; ++E) {
      int64_t OA = 0, OB = 0;
      for (size_t D = 0; D < YS.size(); ++D)
        OA += Idx[D] * SAs[D], OB += Idx[D] * SBs[D];
      float RA = float(Ap[OA] - ZA) * SA, RB = float(Bp[OB] - ZB) * SB;
      float Real = Mul ? RA * RB : RA + RB;
      float V = std::nearbyint(Real / SY) + float(ZY);
      Y[E] = std::min(Hi, std::max(Lo, saturate(V)));
      for (size_t D = YS.size(); D-- > 0;) {
        if (++Idx[D] < YS[D])
          break;
        Idx[D] = 0;
      }
    }
    return Status::ok();
  };
}

namespace {

/// Y[I] = Table[X[I] + 128] over [Begin, End).
void lookUp(const int8_t *Table, const int8_t *X, int8_t *Y, uint64_t Begin,
            uint64_t End) {
  // Locals: a store through int8_t* may alias anything, so a table or a
  // bound read through memory would be reloaded after every store.
  int8_t Local[256];
  std::copy(Table, Table + 256, Local);
  const uint8_t *In = reinterpret_cast<const uint8_t *>(X);
  uint64_t I = Begin;
  // Eight at a time: one 8-byte load and store around eight lookups
  // (byte order does not matter: each byte maps to the same position).
  for (; I + 8 <= End; I += 8) {
    uint64_t Word, Mapped = 0;
    std::memcpy(&Word, In + I, 8);
    Word ^= 0x8080808080808080ULL;
    for (int B = 0; B < 64; B += 8)
      Mapped |= uint64_t(uint8_t(Local[(Word >> B) & 0xFF])) << B;
    std::memcpy(Y + I, &Mapped, 8);
  }
  for (; I < End; ++I)
    Y[I] = Local[uint8_t(In[I] ^ 0x80)];
}

/// Elements per task of a threaded lookup (a multiple of 8): large enough
/// that a task costs more than handing it out.
constexpr uint64_t LookUpChunk = 16384;

struct LookUpTask {
  const int8_t *Table, *X;
  int8_t *Y;
  uint64_t Count;
};

void lookUpChunk(void *Context, size_t Chunk) {
  takeOver(Context);
  const auto &T = *static_cast<const LookUpTask *>(Context);
  uint64_t Begin = uint64_t(Chunk) * LookUpChunk;
  lookUp(T.Table, T.X, T.Y, Begin, std::min(T.Count, Begin + LookUpChunk));
  handOff(Context);
}

} // namespace

PooledRunFn int8Unary(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_UnaryOptions();
  const TensorDesc &XD = *A.In[0].Desc, &YD = *A.Out[0].Desc;
  float SX = XD.Scales[0], SY = YD.Scales[0];
  int64_t ZX = XD.ZeroPoints[0], ZY = YD.ZeroPoints[0];
  // Table[q + 128] = quantize(f(dequantize(q))), rounding half to even as
  // QUANTIZE does.
  std::vector<int8_t> Table(256);
  for (int Q = -128; Q <= 127; ++Q) {
    float Real = applyUnary(O.op(), float(Q - ZX) * SX, O.alpha(), O.beta(),
                            O.gamma(), O.min(), O.max());
    float V = std::nearbyint(Real / SY) + float(ZY);
    Table[size_t(Q + 128)] = std::isnan(V) ? int8_t(ZY) : saturate(V);
  }
  const int8_t *X = A.In[0].as<const int8_t>();
  int8_t *Y = A.Out[0].as<int8_t>();
  uint64_t Count = A.In[0].elements();
  return [=](pthreadpool_t Pool) {
    uint64_t Chunks = (Count + LookUpChunk - 1) / LookUpChunk;
    if (Chunks <= 1 || pthreadpool_get_threads_count(Pool) <= 1) {
      lookUp(Table.data(), X, Y, 0, Count);
      return Status::ok();
    }
    LookUpTask Task{Table.data(), X, Y, Count};
    handOff(&Task);
    pthreadpool_parallelize_1d(Pool, lookUpChunk, &Task, size_t(Chunks),
                               /*flags=*/0);
    takeOver(&Task);
    return Status::ok();
  };
}

RunFn int8MaxPool2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &Xt = A.In[0], &Yt = A.Out[0];
  int64_t N = Xt.dim(0), H = Xt.dim(1), W = Xt.dim(2), C = Xt.dim(3);
  int64_t OH = Yt.dim(1), OW = Yt.dim(2);
  int64_t KH = O.kernel_height(), KW = O.kernel_width();
  int64_t SH = O.stride_height(), SW = O.stride_width();
  int64_t DH = O.dilation_height(), DW = O.dilation_width();
  int64_t PT = O.padding_top(), PL = O.padding_left();
  auto [Lo, Hi] = quantizedRange(O.output_min(), O.output_max(),
                                 Yt.Desc->Scales[0], Yt.Desc->ZeroPoints[0]);
  const int8_t *X = Xt.as<const int8_t>();
  int8_t *Y = Yt.as<int8_t>();
  return [=, Lo = Lo, Hi = Hi]() {
    for (int64_t B = 0; B < N; ++B)
      for (int64_t OY = 0; OY < OH; ++OY)
        for (int64_t OX = 0; OX < OW; ++OX)
          for (int64_t Ch = 0; Ch < C; ++Ch) {
            int8_t M = -128;
            for (int64_t KY = 0; KY < KH; ++KY) {
              int64_t IY = OY * SH - PT + KY * DH;
              if (IY < 0 || IY >= H)
                continue;
              for (int64_t KX = 0; KX < KW; ++KX) {
                int64_t IX = OX * SW - PL + KX * DW;
                if (IX >= 0 && IX < W)
                  M = std::max(M, X[((B * H + IY) * W + IX) * C + Ch]);
              }
            }
            Y[((B * OH + OY) * OW + OX) * C + Ch] = std::min(Hi, std::max(Lo, M));
          }
    return Status::ok();
  };
}

RunFn int8GlobalAveragePool2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Pool2DOptions();
  const KernelTensor &Xt = A.In[0], &Yt = A.Out[0];
  int64_t N = Xt.dim(0), HW = Xt.dim(1) * Xt.dim(2), C = Xt.dim(3);
  int32_t XZero = int32_t(Xt.Desc->ZeroPoints[0]);
  int64_t YZero = Yt.Desc->ZeroPoints[0];
  float Mult = Xt.Desc->Scales[0] / (Yt.Desc->Scales[0] * float(HW));
  auto [Lo, Hi] = quantizedRange(O.output_min(), O.output_max(),
                                 Yt.Desc->Scales[0], YZero);
  const int8_t *X = Xt.as<const int8_t>();
  int8_t *Y = Yt.as<int8_t>();
  return [=, Lo = Lo, Hi = Hi]() {
    for (int64_t B = 0; B < N; ++B)
      for (int64_t Ch = 0; Ch < C; ++Ch) {
        int32_t Acc = 0;
        for (int64_t P = 0; P < HW; ++P)
          Acc += int32_t(X[(B * HW + P) * C + Ch]) - XZero;
        Y[B * C + Ch] = requantize(Acc, Mult, YZero, Lo, Hi);
      }
    return Status::ok();
  };
}

RunFn quantizeOrDequantize(const KernelArgs &A) {
  bool Quantize = A.Op.kind() == fb::OpKind::QUANTIZE;
  const TensorDesc &Q = Quantize ? *A.Out[0].Desc : *A.In[0].Desc;
  float Scale = Q.Scales[0];
  float Zero = float(Q.ZeroPoints[0]);
  uint64_t Count = A.In[0].elements();
  if (Quantize) {
    const float *X = A.In[0].as<const float>();
    int8_t *Y = A.Out[0].as<int8_t>();
    return [=]() {
      for (uint64_t I = 0; I < Count; ++I)
        Y[I] = std::isnan(X[I]) ? saturate(Zero)
                                : saturate(std::nearbyint(X[I] / Scale) + Zero);
      return Status::ok();
    };
  }
  const int8_t *X = A.In[0].as<const int8_t>();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    for (uint64_t I = 0; I < Count; ++I)
      Y[I] = (float(X[I]) - Zero) * Scale;
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
