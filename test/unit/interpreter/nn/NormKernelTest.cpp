// batch_norm (inference and training), instance_norm, layer_norm and lrn:
// hand-computed small cases, and naive loops written here on random data.
#include "NNTestHarness.h"

using namespace kiln;
using namespace nntest;

TEST_CASE("batch_norm inference: hand-computed", "[nn][norm]") {
  // x = [1, 2 | 3, 4] as [1, 2, 1, 2]; eps = 0;
  // c0: scale 2, bias 0.1, mean 1.5, var 0.25 (std 0.5):
  //   (1 - 1.5) / 0.5 * 2 + 0.1 = -1.9, (2 - 1.5) / 0.5 * 2 + 0.1 = 2.1
  // c1: scale 0.5, bias -1, mean 3, var 4 (std 2):
  //   (3 - 3) / 2 * 0.5 - 1 = -1, (4 - 3) / 2 * 0.5 - 1 = -0.75
  Tensor X = f32({1, 2, 1, 2}, {1, 2, 3, 4});
  Tensor S = f32({2}, {2, 0.5}), B = f32({2}, {0.1f, -1}),
         M = f32({2}, {1.5, 3}), V = f32({2}, {0.25, 4});
  auto Y = requireValue(runOp("batch_norm", {&X, &S, &B, &M, &V},
                              {{"epsilon", 0.0}}));
  checkClose(Y[0], {1, 2, 1, 2}, {-1.9, 2.1, -1, -0.75});
}

TEST_CASE("batch_norm training: batch statistics and running stats",
          "[nn][norm]") {
  Sizes XS = {2, 3, 4, 5};
  Tensor X = randomF32(XS, 7), S = randomF32({3}, 8), B = randomF32({3}, 9),
         M = randomF32({3}, 10);
  Tensor V = f32({3}, {0.5, 1.5, 0.25});
  double Eps = 1e-2, Mom = 0.8;
  std::vector<double> XV = values(X), SV = values(S), BV = values(B),
                      MV = values(M), VV = values(V);
  std::vector<double> Mu(3, 0), Var(3, 0), Y(XV.size());
  for (size_t I = 0; I < XV.size(); ++I)
    Mu[size_t(coordsOf(int64_t(I), XS)[1])] += XV[I] / 40;
  for (size_t I = 0; I < XV.size(); ++I) {
    size_t C = size_t(coordsOf(int64_t(I), XS)[1]);
    Var[C] += (XV[I] - Mu[C]) * (XV[I] - Mu[C]) / 40; // population variance
  }
  for (size_t I = 0; I < XV.size(); ++I) {
    size_t C = size_t(coordsOf(int64_t(I), XS)[1]);
    Y[I] = SV[C] * (XV[I] - Mu[C]) / std::sqrt(Var[C] + Eps) + BV[C];
  }
  std::vector<double> RunMean, RunVar;
  for (size_t C = 0; C < 3; ++C) {
    RunMean.push_back(MV[C] * Mom + Mu[C] * (1 - Mom));
    RunVar.push_back(VV[C] * Mom + Var[C] * (1 - Mom));
  }
  AttrMap Attrs = {{"epsilon", Eps}, {"momentum", Mom}, {"training", int64_t(1)}};
  auto Out = requireValue(runOp("batch_norm", {&X, &S, &B, &M, &V}, Attrs, 3));
  checkClose(Out[0], XS, Y, 1e-5, 1e-4);
  checkClose(Out[1], {3}, RunMean);
  checkClose(Out[2], {3}, RunVar);
  // One result: only y.
  Out = requireValue(runOp("batch_norm", {&X, &S, &B, &M, &V}, Attrs, 1));
  checkClose(Out[0], XS, Y, 1e-5, 1e-4);
}

TEST_CASE("instance_norm: per (n, c) statistics", "[nn][norm]") {
  Sizes XS = {2, 3, 3, 4};
  Tensor X = randomF32(XS, 21), S = randomF32({3}, 22), B = randomF32({3}, 23);
  std::vector<double> XV = values(X), SV = values(S), BV = values(B), Want;
  for (int64_t P = 0; P < 6; ++P) {
    double Mu = 0, Var = 0;
    for (int64_t I = 0; I < 12; ++I)
      Mu += XV[size_t(P * 12 + I)] / 12;
    for (int64_t I = 0; I < 12; ++I)
      Var += (XV[size_t(P * 12 + I)] - Mu) * (XV[size_t(P * 12 + I)] - Mu) / 12;
    for (int64_t I = 0; I < 12; ++I)
      Want.push_back(SV[size_t(P % 3)] * (XV[size_t(P * 12 + I)] - Mu) /
                         std::sqrt(Var + 1e-5) +
                     BV[size_t(P % 3)]);
  }
  auto Y = requireValue(runOp("instance_norm", {&X, &S, &B}));
  checkClose(Y[0], XS, Want, 1e-5, 1e-4);
}

TEST_CASE("layer_norm: y, mean and inv_std_dev", "[nn][norm]") {
  // Hand case: x = [1, 2, 3, 4] over the last axis: mean 2.5, population
  // variance (2.25 + .25 + .25 + 2.25) / 4 = 1.25, eps 0 -> inv_std =
  // 1 / sqrt(1.25) = 0.894427191; y = (x - 2.5) * inv_std.
  Tensor X1 = f32({1, 4}, {1, 2, 3, 4}), S1 = f32({4}, {1, 1, 1, 1});
  auto Out = requireValue(
      runOp("layer_norm", {&X1, &S1}, {{"epsilon", 0.0}}, 3));
  double Inv = 0.894427191;
  checkClose(Out[0], {1, 4}, {-1.5 * Inv, -0.5 * Inv, 0.5 * Inv, 1.5 * Inv});
  checkClose(Out[1], {1, 1}, {2.5});
  checkClose(Out[2], {1, 1}, {Inv});

  // Random [2, 3, 4] normalized from axis 1, with scale and bias of [3, 4].
  Sizes XS = {2, 3, 4};
  Tensor X = randomF32(XS, 31), S = randomF32({3, 4}, 32),
         B = randomF32({3, 4}, 33);
  std::vector<double> XV = values(X), SV = values(S), BV = values(B), Want,
                      Means, Invs;
  for (int64_t R = 0; R < 2; ++R) {
    double Mu = 0, Var = 0;
    for (int64_t I = 0; I < 12; ++I)
      Mu += XV[size_t(R * 12 + I)] / 12;
    for (int64_t I = 0; I < 12; ++I)
      Var += (XV[size_t(R * 12 + I)] - Mu) * (XV[size_t(R * 12 + I)] - Mu) / 12;
    double IS = 1 / std::sqrt(Var + 1e-5);
    Means.push_back(Mu);
    Invs.push_back(IS);
    for (int64_t I = 0; I < 12; ++I)
      Want.push_back((XV[size_t(R * 12 + I)] - Mu) * IS * SV[size_t(I)] +
                     BV[size_t(I)]);
  }
  Out = requireValue(runOp("layer_norm", {&X, &S, &B}, {{"axis", int64_t(1)}}, 3));
  checkClose(Out[0], XS, Want, 1e-5, 1e-4);
  checkClose(Out[1], {2, 1, 1}, Means);
  checkClose(Out[2], {2, 1, 1}, Invs, 1e-5, 1e-4);
  // One result, no bias: y = (x - mu) * inv_std * scale.
  Out = requireValue(runOp("layer_norm", {&X, &S}, {{"axis", int64_t(-2)}}));
  for (size_t I = 0; I < Want.size(); ++I)
    Want[I] -= BV[I % 12];
  checkClose(Out[0], XS, Want, 1e-5, 1e-4);
}

TEST_CASE("lrn: the ONNX window across channels", "[nn][norm]") {
  Sizes XS = {2, 5, 3, 2};
  Tensor X = randomF32(XS, 41);
  std::vector<double> XV = values(X);
  for (int64_t Size : {3, 4}) {
    INFO("size " << Size);
    double Alpha = 2e-2, Beta = 0.6, Bias = 1.5;
    std::vector<double> Want;
    for (int64_t I = 0; I < count(XS); ++I) {
      Sizes C = coordsOf(I, XS);
      // i in [max(0, c - floor((size-1)/2)), min(C-1, c + ceil((size-1)/2))]
      int64_t Lo = std::max<int64_t>(0, C[1] - (Size - 1) / 2);
      int64_t Hi = std::min<int64_t>(4, C[1] + Size / 2);
      double Sq = 0;
      for (int64_t Ch = Lo; Ch <= Hi; ++Ch) {
        double V = XV[size_t(((C[0] * 5 + Ch) * 3 + C[2]) * 2 + C[3])];
        Sq += V * V;
      }
      Want.push_back(XV[size_t(I)] / std::pow(Bias + Alpha / Size * Sq, Beta));
    }
    auto Y = requireValue(runOp("lrn", {&X}, {{"size", Size}, {"alpha", Alpha},
                                               {"beta", Beta}, {"bias", Bias}}));
    checkClose(Y[0], XS, Want);
  }
}
