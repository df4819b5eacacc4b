// GRU on the CPU: a forward GRU over the whole sequence, step by step, with
// ONNX's equations and gate rows (z, r, h); b holds Wb + Rb for z and r,
// then the candidate's bias: Wbh + Rbh, or (linear_before_reset) Wbh and
// Rbh apart:
//   z, r = sigmoid(W x_t + R h + b)[0:2H]
//   n = tanh(Wh x_t + Wbh + r * (Rh h + Rbh))   (linear_before_reset)
//   n = tanh(Wh x_t + Rh (r * h) + bh)          (otherwise)
//   h = (1 - z) * n + z * h
// The fallback where oneDNN's GRU primitives decline (OnednnGru.cpp).
#include "cpu/reference/ReferenceKernels.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace kiln::rt::ref {

namespace {

float dot(const float *A, const float *B, int64_t N) {
  float Acc = 0.0f;
  for (int64_t J = 0; J < N; ++J)
    Acc += A[J] * B[J];
  return Acc;
}

} // namespace

RunFn gru(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_GruOptions();
  const bool TimeMajor = O.time_major(), Lbr = O.linear_before_reset();
  const int64_t H = O.hidden_size();
  const KernelTensor &X = A.In[0];
  const int64_t T = X.dim(TimeMajor ? 0 : 1), B = X.dim(TimeMajor ? 1 : 0),
                I = X.dim(2);
  auto Optional = [&](size_t K) -> const float * {
    return K < A.In.size() && A.In[K].present() ? A.In[K].as<const float>()
                                                : nullptr;
  };
  const float *Xs = X.as<const float>(), *W = A.In[1].as<const float>(),
              *R = A.In[2].as<const float>(), *Bias = Optional(3),
              *H0 = Optional(4);
  float *Y = A.Out[0].as<float>();
  float *Yh = A.Out.size() > 1 ? A.Out[1].as<float>() : nullptr;
  struct Scratch {
    std::vector<float> Hs, Gates, Reset;
  };
  auto S = std::make_shared<Scratch>();
  S->Hs.resize(size_t(B * H));
  S->Gates.resize(size_t(2 * H));
  S->Reset.resize(size_t(H));
  return [=]() {
    std::vector<float> &Hs = S->Hs, &G = S->Gates, &Rh = S->Reset;
    if (H0)
      std::copy(H0, H0 + B * H, Hs.begin());
    else
      std::fill(Hs.begin(), Hs.end(), 0.0f);
    auto BiasAt = [&](int64_t K) { return Bias ? Bias[K] : 0.0f; };
    for (int64_t Step = 0; Step < T; ++Step)
      for (int64_t N = 0; N < B; ++N) {
        const int64_t Row = TimeMajor ? Step * B + N : N * T + Step;
        const float *Xt = Xs + Row * I;
        float *Ht = Hs.data() + N * H;
        for (int64_t K = 0; K < 2 * H; ++K)
          G[size_t(K)] = sigmoid(BiasAt(K) + dot(W + K * I, Xt, I) +
                                 dot(R + K * H, Ht, H));
        // r * h, for the candidate's recurrent linear without
        // linear_before_reset.
        for (int64_t K = 0; K < H; ++K)
          Rh[size_t(K)] = G[size_t(H + K)] * Ht[K];
        float *Yt = Y + Row * H;
        for (int64_t K = 0; K < H; ++K) {
          const int64_t Gate = 2 * H + K;
          const float InPart = BiasAt(Gate) + dot(W + Gate * I, Xt, I);
          const float Cand =
              Lbr ? std::tanh(InPart +
                              G[size_t(H + K)] * (BiasAt(3 * H + K) +
                                                  dot(R + Gate * H, Ht, H)))
                  : std::tanh(InPart + dot(R + Gate * H, Rh.data(), H));
          const float Z = G[size_t(K)];
          Yt[K] = (1.0f - Z) * Cand + Z * Ht[K];
        }
        std::copy(Yt, Yt + H, Ht);
      }
    if (Yh)
      std::copy(Hs.begin(), Hs.end(), Yh);
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
