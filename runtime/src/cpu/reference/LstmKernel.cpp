// LSTM on the CPU: a forward LSTM over the whole sequence, step by step,
// with ONNX's equations and gate rows (i, o, f, c):
//   g = W x_t + R h + b;  i, o, f = sigmoid(g[0:3H]);  c' = tanh(g[3H:4H])
//   c = f * c + i * c';  h = o * tanh(c)
// The fallback where neither oneDNN (OnednnLstm.cpp) nor Eigen
// (cpu/eigen) takes the operator, and what --reference-kernels runs.
#include "cpu/reference/ReferenceKernels.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace kiln::rt::ref {

RunFn lstm(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_LstmOptions();
  const bool TimeMajor = O.time_major();
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
              *H0 = Optional(4), *C0 = Optional(5);
  float *Y = A.Out[0].as<float>();
  float *Yh = A.Out.size() > 1 ? A.Out[1].as<float>() : nullptr;
  struct Scratch {
    std::vector<float> Hs, Cs, Gates;
  };
  auto S = std::make_shared<Scratch>();
  S->Hs.resize(size_t(B * H));
  S->Cs.resize(size_t(B * H));
  S->Gates.resize(size_t(4 * H));
  return [=]() {
    std::vector<float> &Hs = S->Hs, &Cs = S->Cs, &G = S->Gates;
    if (H0)
      std::copy(H0, H0 + B * H, Hs.begin());
    else
      std::fill(Hs.begin(), Hs.end(), 0.0f);
    if (C0)
      std::copy(C0, C0 + B * H, Cs.begin());
    else
      std::fill(Cs.begin(), Cs.end(), 0.0f);
    for (int64_t Step = 0; Step < T; ++Step)
      for (int64_t N = 0; N < B; ++N) {
        const int64_t Row = TimeMajor ? Step * B + N : N * T + Step;
        const float *Xt = Xs + Row * I;
        float *Ht = Hs.data() + N * H, *Ct = Cs.data() + N * H;
        for (int64_t K = 0; K < 4 * H; ++K) {
          float Acc = Bias ? Bias[K] : 0.0f;
          const float *Wk = W + K * I, *Rk = R + K * H;
          for (int64_t J = 0; J < I; ++J)
            Acc += Wk[J] * Xt[J];
          for (int64_t J = 0; J < H; ++J)
            Acc += Rk[J] * Ht[J];
          G[size_t(K)] = Acc;
        }
        float *Yt = Y + Row * H;
        for (int64_t K = 0; K < H; ++K) {
          const float In = sigmoid(G[size_t(K)]);
          const float Out = sigmoid(G[size_t(H + K)]);
          const float Forget = sigmoid(G[size_t(2 * H + K)]);
          const float Cand = std::tanh(G[size_t(3 * H + K)]);
          Ct[K] = Forget * Ct[K] + In * Cand;
          Yt[K] = Out * std::tanh(Ct[K]);
        }
        std::copy(Yt, Yt + H, Ht);
      }
    if (Yh)
      std::copy(Hs.begin(), Hs.end(), Yh);
    return Status::ok();
  };
}

} // namespace kiln::rt::ref
