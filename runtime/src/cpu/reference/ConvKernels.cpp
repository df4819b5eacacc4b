// Reference convolution, transposed convolution, fully connected and matmul
// on f32, in the layouts the CPU backend writes: NHWC activations, OHWI (or
// HWO depthwise) weights, [out, in] fully connected weights. Plain loops,
// accumulating in float like XNNPACK; the result is clamped to the fused
// activation range.
#include "cpu/reference/ReferenceKernels.h"
#include "SpatialMath.h"

#include <cstring>

namespace kiln::rt::ref {

namespace {

struct ConvGeometry {
  int64_t N, H, W, C, OH, OW, OC;
  int64_t KH, KW, SH, SW, DH, DW, PT, PL;
  int64_t Groups, GroupIn, GroupOut;
  float Min, Max;
};

template <typename Options>
ConvGeometry geometry(const KernelArgs &A, const Options &O) {
  const KernelTensor &X = A.In[0], &Y = A.Out[0];
  return {X.dim(0),           X.dim(1),           X.dim(2),
          X.dim(3),           Y.dim(1),           Y.dim(2),
          Y.dim(3),           O.kernel_height(),  O.kernel_width(),
          O.stride_height(),  O.stride_width(),   O.dilation_height(),
          O.dilation_width(), O.padding_top(),    O.padding_left(),
          O.groups(),         O.group_input_channels(),
          O.group_output_channels(), O.output_min(), O.output_max()};
}

const float *biasOf(const KernelArgs &A) {
  return A.In.size() > 2 && A.In[2].present() ? A.In[2].as<const float>()
                                              : nullptr;
}

} // namespace

RunFn conv2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Conv2DOptions();
  ConvGeometry G = geometry(A, O);
  bool Depthwise = O.depthwise();
  const float *X = A.In[0].as<const float>(), *Wt = A.In[1].as<const float>();
  const float *B = biasOf(A);
  float *Y = A.Out[0].as<float>();
  return [=]() {
    for (int64_t N = 0; N < G.N; ++N)
      for (int64_t OY = 0; OY < G.OH; ++OY)
        for (int64_t OX = 0; OX < G.OW; ++OX) {
          float *Out = Y + ((N * G.OH + OY) * G.OW + OX) * G.OC;
          for (int64_t OC = 0; OC < G.OC; ++OC) {
            int64_t Group = OC / G.GroupOut;
            float Acc = B ? B[OC] : 0.0f;
            for (int64_t KY = 0; KY < G.KH; ++KY) {
              int64_t IY = OY * G.SH - G.PT + KY * G.DH;
              if (IY < 0 || IY >= G.H)
                continue;
              for (int64_t KX = 0; KX < G.KW; ++KX) {
                int64_t IX = OX * G.SW - G.PL + KX * G.DW;
                if (IX < 0 || IX >= G.W)
                  continue;
                const float *In =
                    X + ((N * G.H + IY) * G.W + IX) * G.C + Group * G.GroupIn;
                if (Depthwise) {
                  Acc += In[0] * Wt[(KY * G.KW + KX) * G.OC + OC];
                  continue;
                }
                const float *Wr = Wt + ((OC * G.KH + KY) * G.KW + KX) * G.GroupIn;
                for (int64_t IC = 0; IC < G.GroupIn; ++IC)
                  Acc += In[IC] * Wr[IC];
              }
            }
            Out[OC] = clampValue(Acc, G.Min, G.Max);
          }
        }
    return Status::ok();
  };
}

RunFn deconv2D(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_Deconv2DOptions();
  ConvGeometry G = geometry(A, O);
  const float *X = A.In[0].as<const float>(), *Wt = A.In[1].as<const float>();
  const float *B = biasOf(A);
  float *Y = A.Out[0].as<float>();
  return [=]() {
    int64_t Pixels = G.N * G.OH * G.OW;
    for (int64_t P = 0; P < Pixels; ++P)
      for (int64_t OC = 0; OC < G.OC; ++OC)
        Y[P * G.OC + OC] = B ? B[OC] : 0.0f;
    // Each input pixel scatters into the outputs its kernel window covers.
    for (int64_t N = 0; N < G.N; ++N)
      for (int64_t IY = 0; IY < G.H; ++IY)
        for (int64_t IX = 0; IX < G.W; ++IX) {
          const float *In = X + ((N * G.H + IY) * G.W + IX) * G.C;
          for (int64_t KY = 0; KY < G.KH; ++KY) {
            int64_t OY = IY * G.SH - G.PT + KY * G.DH;
            if (OY < 0 || OY >= G.OH)
              continue;
            for (int64_t KX = 0; KX < G.KW; ++KX) {
              int64_t OX = IX * G.SW - G.PL + KX * G.DW;
              if (OX < 0 || OX >= G.OW)
                continue;
              float *Out = Y + ((N * G.OH + OY) * G.OW + OX) * G.OC;
              for (int64_t OC = 0; OC < G.OC; ++OC) {
                int64_t Group = OC / G.GroupOut;
                const float *Wr = Wt + ((OC * G.KH + KY) * G.KW + KX) * G.GroupIn;
                const float *Xg = In + Group * G.GroupIn;
                float Acc = 0;
                for (int64_t IC = 0; IC < G.GroupIn; ++IC)
                  Acc += Xg[IC] * Wr[IC];
                Out[OC] += Acc;
              }
            }
          }
        }
    for (int64_t I = 0; I < Pixels * G.OC; ++I)
      Y[I] = clampValue(Y[I], G.Min, G.Max);
    return Status::ok();
  };
}

RunFn fullyConnected(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_FullyConnectedOptions();
  const KernelTensor &X = A.In[0], &W = A.In[1];
  int64_t K = X.Desc->Shape.back(), OC = W.dim(0);
  int64_t Rows = 1;
  for (int64_t I = 0; I + 1 < X.rank(); ++I)
    Rows *= X.dim(I);
  const float *Xp = X.as<const float>(), *Wp = W.as<const float>();
  const float *B = biasOf(A);
  float *Y = A.Out[0].as<float>();
  float Min = O.output_min(), Max = O.output_max();
  return [=]() {
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t C = 0; C < OC; ++C) {
        float Acc = B ? B[C] : 0.0f;
        const float *Xr = Xp + R * K, *Wr = Wp + C * K;
        for (int64_t I = 0; I < K; ++I)
          Acc += Xr[I] * Wr[I];
        Y[R * OC + C] = clampValue(Acc, Min, Max);
      }
    return Status::ok();
  };
}

MatMulBatches::MatMulBatches(const KernelTensor &Ta, const KernelTensor &Tb,
                             const KernelTensor &Ty) {
  int64_t RankY = Ty.rank();
  M = Ty.dim(RankY - 2), N = Ty.dim(RankY - 1), K = Ta.dim(Ta.rank() - 1);
  Dims.assign(Ty.shape().begin(), Ty.shape().end() - 2);
  // Batch strides of a and b aligned to y's batch dims (0 where broadcast).
  auto batchStrides = [&](const KernelTensor &T) {
    std::vector<int64_t> S(Dims.size(), 0);
    int64_t Stride = T.dim(T.rank() - 2) * T.dim(T.rank() - 1);
    int64_t Offset = int64_t(Dims.size()) - (T.rank() - 2);
    for (int64_t I = T.rank() - 3; I >= 0; --I) {
      if (T.dim(I) != 1)
        S[size_t(I + Offset)] = Stride;
      Stride *= T.dim(I);
    }
    return S;
  };
  StrideA = batchStrides(Ta);
  StrideB = batchStrides(Tb);
}

void MatMulBatches::forEach(
    const std::function<void(int64_t, int64_t, int64_t)> &Fn) const {
  int64_t Batches = 1;
  for (int64_t D : Dims)
    Batches *= D;
  std::vector<int64_t> Index(Dims.size(), 0);
  for (int64_t Bt = 0; Bt < Batches; ++Bt) {
    int64_t OffA = 0, OffB = 0;
    for (size_t D = 0; D < Index.size(); ++D) {
      OffA += Index[D] * StrideA[D];
      OffB += Index[D] * StrideB[D];
    }
    Fn(OffA, OffB, Bt * M * N);
    for (int64_t D = int64_t(Index.size()) - 1; D >= 0; --D) {
      if (++Index[size_t(D)] < Dims[size_t(D)])
        break;
      Index[size_t(D)] = 0;
    }
  }
}

RunFn matMul(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_MatMulOptions();
  MatMulBatches B(A.In[0], A.In[1], A.Out[0]);
  const float *Pa = A.In[0].as<const float>(), *Pb = A.In[1].as<const float>();
  float *Py = A.Out[0].as<float>();
  float Min = O.output_min(), Max = O.output_max();
  return [=]() {
    const int64_t M = B.M, N = B.N, K = B.K;
    B.forEach([&](int64_t OffA, int64_t OffB, int64_t OffY) {
      float *Out = Py + OffY;
      std::fill(Out, Out + M * N, 0.0f);
      for (int64_t I = 0; I < M; ++I)
        for (int64_t P = 0; P < K; ++P) {
          float Av = Pa[OffA + I * K + P];
          const float *Br = Pb + OffB + P * N;
          for (int64_t J = 0; J < N; ++J)
            Out[I * N + J] += Av * Br[J];
        }
      for (int64_t I = 0; I < M * N; ++I)
        Out[I] = clampValue(Out[I], Min, Max);
    });
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
