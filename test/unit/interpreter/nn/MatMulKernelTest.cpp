// matmul, gemm and linear against naive triple loops written here (double
// accumulation) on seeded random data: 1-D promotion, batch broadcasting,
// every gemm attribute and c shape, linear on any rank; plus a hand example.
#include "NNTestHarness.h"

using namespace kiln;
using namespace nntest;

namespace {

/// Naive numpy matmul of A (sizes SA) and B (sizes SB).
std::vector<double> naiveMatMul(const std::vector<double> &A, Sizes SA,
                                const std::vector<double> &B, Sizes SB,
                                Sizes &Out) {
  bool VecA = SA.size() == 1, VecB = SB.size() == 1;
  if (VecA) SA.insert(SA.begin(), 1);
  if (VecB) SB.push_back(1);
  int64_t M = SA[SA.size() - 2], K = SA.back(), N = SB.back();
  size_t R = std::max(SA.size(), SB.size()) - 2;
  // Left-pad both batch shapes with 1s to rank R.
  Sizes BA(R - (SA.size() - 2), 1), BB(R - (SB.size() - 2), 1);
  BA.insert(BA.end(), SA.begin(), SA.end() - 2);
  BB.insert(BB.end(), SB.begin(), SB.end() - 2);
  Sizes Batch(R);
  for (size_t D = 0; D < R; ++D)
    Batch[D] = std::max(BA[D], BB[D]);
  Out = Batch;
  if (!VecA) Out.push_back(M);
  if (!VecB) Out.push_back(N);
  std::vector<double> Y;
  for (int64_t Bi = 0; Bi < count(Batch); ++Bi) {
    Sizes C = coordsOf(Bi, Batch);
    int64_t OA = 0, OB = 0;
    for (size_t D = 0; D < R; ++D) {
      OA = OA * BA[D] + (BA[D] == 1 ? 0 : C[D]);
      OB = OB * BB[D] + (BB[D] == 1 ? 0 : C[D]);
    }
    for (int64_t I = 0; I < M; ++I)
      for (int64_t J = 0; J < N; ++J) {
        double S = 0;
        for (int64_t L = 0; L < K; ++L)
          S += A[size_t(OA * M * K + I * K + L)] *
               B[size_t(OB * K * N + L * N + J)];
        Y.push_back(S);
      }
  }
  return Y;
}

} // namespace

TEST_CASE("matmul matches numpy semantics", "[nn][matmul]") {
  std::vector<std::pair<Sizes, Sizes>> Cases = {
      {{3, 4}, {4, 5}},          {{2, 3, 4}, {4, 5}},
      {{4}, {2, 4, 3}},          {{2, 3, 4}, {4}},
      {{4}, {4}},                {{2, 1, 3, 4}, {5, 4, 2}},
      {{1, 3, 4}, {2, 4, 5}},    {{2, 3, 4}, {2, 4, 5}},
      {{64, 48}, {48, 40}},      {{3, 1, 2, 5}, {1, 5, 3}},
      {{7, 33, 20}, {1, 20, 9}}, {{1, 1}, {1, 1}},
  };
  uint32_t Seed = 1;
  for (auto &C : Cases) {
    INFO("case " << toString(makeShape(C.first)) << " x "
                 << toString(makeShape(C.second)));
    Tensor A = randomF32(C.first, Seed++), B = randomF32(C.second, Seed++);
    Sizes Out;
    std::vector<double> Want =
        naiveMatMul(values(A), C.first, values(B), C.second, Out);
    for (unsigned Threads : {1u, 3u}) {
      auto Y = requireValue(runOp("matmul", {&A, &B}, {}, 1, Threads));
      checkClose(Y[0], Out, Want);
    }
  }
}

TEST_CASE("matmul: hand example and errors", "[nn][matmul]") {
  // [[1, 2], [3, 4]] . [[5, 6], [7, 8]] = [[1*5+2*7, 1*6+2*8], [3*5+4*7,
  // 3*6+4*8]] = [[19, 22], [43, 50]].
  Tensor A = f32({2, 2}, {1, 2, 3, 4}), B = f32({2, 2}, {5, 6, 7, 8});
  auto Y = requireValue(runOp("matmul", {&A, &B}));
  checkClose(Y[0], {2, 2}, {19, 22, 43, 50});
  Tensor C = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  CHECK(runError("matmul", {&A, &C}).find("inner dims") != std::string::npos);
}

TEST_CASE("gemm: alpha, beta, transposes and c broadcasting", "[nn][gemm]") {
  int64_t M = 5, K = 7, N = 6;
  std::vector<Sizes> CShapes = {{}, {M, N}, {N}, {1, N}, {M, 1}, {1}, {0}};
  uint32_t Seed = 40;
  for (int TA = 0; TA < 2; ++TA)
    for (int TB = 0; TB < 2; ++TB)
      for (const Sizes &CS : CShapes) {
        INFO("trans_a " << TA << " trans_b " << TB << " c "
                        << toString(makeShape(CS)));
        Tensor A = randomF32(TA ? Sizes{K, M} : Sizes{M, K}, Seed++);
        Tensor B = randomF32(TB ? Sizes{N, K} : Sizes{K, N}, Seed++);
        bool HasC = CS != Sizes{0};
        Tensor C = randomF32(CS, Seed++);
        double Alpha = 0.25, Beta = 0.35;
        std::vector<double> AV = values(A), BV = values(B), CV = values(C);
        std::vector<double> Want;
        for (int64_t I = 0; I < M; ++I)
          for (int64_t J = 0; J < N; ++J) {
            double S = 0;
            for (int64_t L = 0; L < K; ++L)
              S += AV[size_t(TA ? L * M + I : I * K + L)] *
                   BV[size_t(TB ? J * K + L : L * N + J)];
            double CIJ = 0;
            if (HasC) {
              int64_t CM = CS.size() == 2 ? CS[0] : 1,
                      CN = CS.empty() ? 1 : CS.back();
              CIJ = CV[size_t((CM == 1 ? 0 : I) * CN + (CN == 1 ? 0 : J))];
            }
            Want.push_back(Alpha * S + Beta * CIJ);
          }
        AttrMap Attrs = {{"alpha", Alpha},
                         {"beta", Beta},
                         {"trans_a", int64_t(TA)},
                         {"trans_b", int64_t(TB)}};
        std::vector<const Tensor *> Ops = {&A, &B};
        if (HasC)
          Ops.push_back(&C);
        auto Y = requireValue(runOp("gemm", Ops, Attrs, 1, 3));
        checkClose(Y[0], {M, N}, Want);
      }
}

TEST_CASE("linear: y = x . w^T + b on any rank", "[nn][linear]") {
  std::vector<Sizes> XShapes = {{5}, {3, 5}, {2, 3, 5}, {40, 5}};
  uint32_t Seed = 90;
  for (const Sizes &XS : XShapes)
    for (bool Bias : {false, true}) {
      INFO("x " << toString(makeShape(XS)) << " bias " << Bias);
      Tensor X = randomF32(XS, Seed++), W = randomF32({4, 5}, Seed++),
             B = randomF32({4}, Seed++);
      std::vector<double> XV = values(X), WV = values(W), BV = values(B),
                          Want;
      for (int64_t R = 0; R < count(XS) / 5; ++R)
        for (int64_t O = 0; O < 4; ++O) {
          double S = Bias ? BV[size_t(O)] : 0.0;
          for (int64_t I = 0; I < 5; ++I)
            S += XV[size_t(R * 5 + I)] * WV[size_t(O * 5 + I)];
          Want.push_back(S);
        }
      Sizes YS = XS;
      YS.back() = 4;
      std::vector<const Tensor *> Ops = {&X, &W};
      if (Bias)
        Ops.push_back(&B);
      auto Y = requireValue(runOp("linear", Ops, {}, 1, 3));
      checkClose(Y[0], YS, Want);
    }
}
