// Reference lstm, gru and rnn (ONNX LSTM/GRU/RNN; lib/IR/ops/RecurrentOps.cpp): plain
// loops in double, one batch element and direction at a time, so a shorter
// sequence length (sequence_lens) simply stops early; the steps after it
// write zeros to y, and y_h / y_c hold the last valid step. f16/bf16 go
// through f32.
#include "Interpreter/KernelSupport.h"
#include "Interpreter/kernels/NNKernels.h"

#include <cmath>
#include <optional>

namespace kiln {

namespace {

double sigmoid(double X) { return 1.0 / (1.0 + std::exp(-X)); }

struct RecurrentShape {
  int64_t Seq, Batch, Input, Hidden, Dirs, Gates;
  bool BatchFirst; // layout 1
  // Element offsets of y[t, d, b, :] and of a state[d, b, :].
  int64_t yAt(int64_t T, int64_t D, int64_t B) const {
    return BatchFirst ? ((B * Seq + T) * Dirs + D) * Hidden
                      : ((T * Dirs + D) * Batch + B) * Hidden;
  }
  int64_t stateAt(int64_t D, int64_t B) const {
    return BatchFirst ? (B * Dirs + D) * Hidden : (D * Batch + B) * Hidden;
  }
  int64_t xAt(int64_t T, int64_t B) const {
    return BatchFirst ? (B * Seq + T) * Input : (T * Batch + B) * Input;
  }
};

/// out[g] = sum_k M[row0 + g, k] * v[k] for G*H rows of a [dirs, G*H, K]
/// matrix (direction D), plus a bias row when given.
template <typename V_T>
void gemv(const float *M, int64_t Rows, int64_t K, const V_T *V,
          const float *Bias, std::vector<double> &Out) {
  for (int64_t G = 0; G < Rows; ++G) {
    double S = Bias ? Bias[G] : 0.0;
    for (int64_t I = 0; I < K; ++I)
      S += double(M[G * K + I]) * V[I];
    Out[size_t(G)] = S;
  }
}

llvm::Error recurrentKernel(KernelContext &Ctx) {
  const Node &N = Ctx.N;
  bool Lstm = N.isOp("lstm"), Rnn = N.isOp("rnn");
  Tensor X = widenToF32(*Ctx.input(0)), W = widenToF32(*Ctx.input(1)),
         R = widenToF32(*Ctx.input(2));
  std::vector<int64_t> XS = sizesOf(X);
  RecurrentShape S;
  S.BatchFirst = N.getInt("layout") == 1;
  S.Seq = XS[S.BatchFirst ? 1 : 0];
  S.Batch = XS[S.BatchFirst ? 0 : 1];
  S.Input = XS[2];
  S.Hidden = N.getInt("hidden_size");
  S.Gates = Lstm ? 4 : Rnn ? 1 : 3;
  S.Dirs = N.getString("direction") == "bidirectional" ? 2 : 1;
  bool Reverse = N.getString("direction") == "reverse";
  int64_t H = S.Hidden, GH = S.Gates * H;
  if (sizesOf(W) != std::vector<int64_t>{S.Dirs, GH, S.Input} ||
      sizesOf(R) != std::vector<int64_t>{S.Dirs, GH, H})
    return inputError("w {0} or r {1} does not match x {2}",
                      toString(W.type()), toString(R.type()),
                      toString(X.type()));
  auto Optional = [&](unsigned I) -> std::optional<Tensor> {
    const Tensor *T = Ctx.input(I);
    if (nn::isAbsent(T))
      return std::nullopt;
    return widenToF32(*T);
  };
  std::optional<Tensor> B = Optional(3), H0 = Optional(5),
                        C0 = Lstm ? Optional(6) : std::nullopt;
  if (B && B->numElements() != S.Dirs * 2 * GH)
    return inputError("b {0} needs [{1}, {2}]", toString(B->type()), S.Dirs,
                      2 * GH);
  for (const std::optional<Tensor> *State : {&H0, &C0})
    if (*State && (*State)->numElements() != S.Dirs * S.Batch * H)
      return inputError("initial state {0} needs {1} x {2} x {3} values",
                        toString((*State)->type()), S.Dirs, S.Batch, H);
  std::vector<int64_t> Lens(size_t(S.Batch), S.Seq);
  if (const Tensor *L = Ctx.input(4); !nn::isAbsent(L)) {
    auto V = readInts(*L, "sequence_lens");
    if (!V)
      return V.takeError();
    if (int64_t(V->size()) != S.Batch)
      return inputError("sequence_lens has {0} values for a batch of {1}",
                        V->size(), S.Batch);
    for (int64_t Len : *V)
      if (Len < 0 || Len > S.Seq)
        return inputError("sequence length {0} is outside [0, {1}]", Len,
                          S.Seq);
    Lens = *V;
  }
  std::vector<int64_t> YSizes = S.BatchFirst
      ? std::vector<int64_t>{S.Batch, S.Seq, S.Dirs, H}
      : std::vector<int64_t>{S.Seq, S.Dirs, S.Batch, H};
  std::vector<int64_t> StateSizes = S.BatchFirst
      ? std::vector<int64_t>{S.Batch, S.Dirs, H}
      : std::vector<int64_t>{S.Dirs, S.Batch, H};
  auto Y = newTensor(ElementType::F32, YSizes);
  auto YH = newTensor(ElementType::F32, StateSizes);
  auto YC = newTensor(ElementType::F32, StateSizes);
  if (!Y) return Y.takeError();
  if (!YH) return YH.takeError();
  if (!YC) return YC.takeError();
  const float *PX = dataAs<float>(X), *PW = dataAs<float>(W),
              *PR = dataAs<float>(R);
  bool BeforeReset = N.isOp("gru") && N.getInt("linear_before_reset") != 0;
  std::vector<double> XG(static_cast<size_t>(GH)), HG(static_cast<size_t>(GH));
  std::vector<double> Hd(static_cast<size_t>(H)), Cd(static_cast<size_t>(H)), RH(static_cast<size_t>(H));
  for (int64_t D = 0; D < S.Dirs; ++D) {
    bool Backward = Reverse || D == 1;
    const float *WD = PW + D * GH * S.Input, *RD = PR + D * GH * H;
    const float *WB = B ? dataAs<float>(*B) + D * 2 * GH : nullptr;
    const float *RB = WB ? WB + GH : nullptr;
    for (int64_t Bt = 0; Bt < S.Batch; ++Bt) {
      int64_t Off = S.stateAt(D, Bt);
      for (int64_t I = 0; I < H; ++I) {
        Hd[size_t(I)] = H0 ? dataAs<float>(*H0)[Off + I] : 0.0;
        Cd[size_t(I)] = C0 ? dataAs<float>(*C0)[Off + I] : 0.0;
      }
      int64_t Len = Lens[size_t(Bt)];
      for (int64_t Step = 0; Step < Len; ++Step) {
        int64_t T = Backward ? Len - 1 - Step : Step;
        gemv(WD, GH, S.Input, PX + S.xAt(T, Bt), WB, XG);
        if (Lstm) {
          gemv(RD, GH, H, Hd.data(), RB, HG);
          for (int64_t I = 0; I < H; ++I) {
            auto G = [&](int64_t K) {
              return XG[size_t(K * H + I)] + HG[size_t(K * H + I)];
            };
            double In = sigmoid(G(0)), Out = sigmoid(G(1)),
                   Forget = sigmoid(G(2)), Cell = std::tanh(G(3));
            Cd[size_t(I)] = Forget * Cd[size_t(I)] + In * Cell;
            Hd[size_t(I)] = Out * std::tanh(Cd[size_t(I)]);
          }
        } else if (Rnn) {
          gemv(RD, H, H, Hd.data(), RB, HG);
          for (int64_t I = 0; I < H; ++I)
            Hd[size_t(I)] = std::tanh(XG[size_t(I)] + HG[size_t(I)]);
        } else {
          // z and r read h; the candidate reads r*h (or r*(h R + Rb)).
          gemv(RD, 2 * H, H, Hd.data(), RB, HG);
          std::vector<double> Z(static_cast<size_t>(H)), Rg(static_cast<size_t>(H));
          for (int64_t I = 0; I < H; ++I) {
            Z[size_t(I)] = sigmoid(XG[size_t(I)] + HG[size_t(I)]);
            Rg[size_t(I)] = sigmoid(XG[size_t(H + I)] + HG[size_t(H + I)]);
          }
          const float *RHRows = RD + 2 * H * H;
          const float *RHBias = RB ? RB + 2 * H : nullptr;
          std::vector<double> Cand(static_cast<size_t>(H));
          if (BeforeReset) {
            gemv(RHRows, H, H, Hd.data(), RHBias, Cand);
            for (int64_t I = 0; I < H; ++I)
              Cand[size_t(I)] *= Rg[size_t(I)];
          } else {
            for (int64_t I = 0; I < H; ++I)
              RH[size_t(I)] = Rg[size_t(I)] * Hd[size_t(I)];
            gemv(RHRows, H, H, RH.data(), RHBias, Cand);
          }
          for (int64_t I = 0; I < H; ++I) {
            double HT = std::tanh(XG[size_t(2 * H + I)] + Cand[size_t(I)]);
            Hd[size_t(I)] = (1 - Z[size_t(I)]) * HT + Z[size_t(I)] * Hd[size_t(I)];
          }
        }
        float *PY = mutableData<float>(*Y) + S.yAt(T, D, Bt);
        for (int64_t I = 0; I < H; ++I)
          PY[I] = float(Hd[size_t(I)]);
      }
      for (int64_t I = 0; I < H; ++I) {
        mutableData<float>(*YH)[Off + I] = float(Hd[size_t(I)]);
        mutableData<float>(*YC)[Off + I] = float(Cd[size_t(I)]);
      }
    }
  }
  ElementType Orig = Ctx.input(0)->type().Elem;
  Ctx.Outputs.push_back(narrowFromF32(*Y, Orig));
  if (N.numResults() > 1)
    Ctx.Outputs.push_back(narrowFromF32(*YH, Orig));
  if (N.numResults() > 2)
    Ctx.Outputs.push_back(narrowFromF32(*YC, Orig));
  return llvm::Error::success();
}

} // namespace

void registerRecurrentKernels() {
  registerKernel("lstm", recurrentKernel);
  registerKernel("gru", recurrentKernel);
  registerKernel("rnn", recurrentKernel);
}

} // namespace kiln
