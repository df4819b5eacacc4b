// Calibration methods: hand-computed percentile edges, outlier clipping by
// entropy and mse, and bit-identical ranges from merged shards for every
// method (what `kiln calibrate --merge` promises).
#include "passes/quant/CalibrationMethod.h"
#include "passes/quant/Int8Scheme.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

using namespace kiln;

namespace {
TensorObserver observe(const std::vector<float> &X, uint32_t Bins) {
  TensorObserver O(Bins);
  O.observe(X.data(), X.size());
  return O;
}

CalibrationMethodOptions method(CalibrationMethod M, double P = 99.99) {
  CalibrationMethodOptions O;
  O.Method = M;
  O.Percentile = P;
  return O;
}

std::vector<float> gaussianWithOutliers(std::mt19937 &Rng, size_t N) {
  std::normal_distribution<float> G(0.0f, 1.0f);
  std::vector<float> X(N);
  for (float &V : X)
    V = G(Rng);
  for (size_t I = 0; I < 10; ++I)
    X[I * 97] = I % 2 ? 50.0f : -50.0f;
  return X;
}
} // namespace

TEST_CASE("method names", "[quant][method]") {
  CHECK(*parseCalibrationMethod("entropy") == CalibrationMethod::Entropy);
  CHECK(!parseCalibrationMethod("kl"));
  CHECK(calibrationMethodName(CalibrationMethod::Mse) == "mse");
}

TEST_CASE("percentile takes bin edges at the cumulative targets",
          "[quant][method]") {
  std::vector<float> X;
  for (int I = 0; I < 100; ++I)
    X.push_back(0.01f * float(I));
  // 64 bins over [-1, 1): w = 1/32. 91 values lie below 29/32 (bin 60 ends
  // there; 88 below 28/32), so hi = 29/32; 13 values lie below 4/32 (10 below
  // 3/32), so lo = 3/32, the lower edge of bin 35.
  TensorObserver O = observe(X, 64);
  ActivationRange R = chooseRange(O, method(CalibrationMethod::Percentile, 90));
  CHECK(R.Lo == 3.0 / 32);
  CHECK(R.Hi == 29.0 / 32);
  // 100% is min/max.
  R = chooseRange(O, method(CalibrationMethod::Percentile, 100));
  CHECK(R.Lo == 0.0);
  CHECK(R.Hi == double(X.back()));
  R = chooseRange(O, method(CalibrationMethod::MinMax));
  CHECK(R.Hi == double(X.back()));
}

TEST_CASE("entropy and mse clip rare outliers, minmax does not",
          "[quant][method]") {
  std::mt19937 Rng(3);
  TensorObserver O = observe(gaussianWithOutliers(Rng, 100000), 2048);
  ActivationRange MM = chooseRange(O, method(CalibrationMethod::MinMax));
  CHECK(MM.Lo == -50.0);
  CHECK(MM.Hi == 50.0);
  // 2048 bins over [-64, 64): the smallest entropy candidate is 128 bins of
  // |x|, i.e. 8.
  ActivationRange E = chooseRange(O, method(CalibrationMethod::Entropy));
  CHECK(E.Hi >= 8.0);
  CHECK(E.Hi < 20.0);
  CHECK(E.Lo == -E.Hi);
  // Ten outliers at 50 cost more clipped to 8 (10 * 42^2) than the rounding
  // error of 100000 values at scale 100/255 (1e5 * (100/255)^2 / 12): mse
  // keeps (almost all of) them.
  ActivationRange M = chooseRange(O, method(CalibrationMethod::Mse));
  CHECK(M.Hi > 40.0);
  ActivationRange P = chooseRange(O, method(CalibrationMethod::Percentile, 99.9));
  CHECK(P.Hi > 3.0);
  CHECK(P.Hi < 4.0);
}

TEST_CASE("entropy on more than 8192 bins searches the 8192-bin histogram",
          "[quant][method]") {
  // Summing 8 adjacent bins of 65,536 over [-64, 64) gives exactly the
  // histogram of 8192 bins over the same range, and so the same threshold;
  // the search stays as cheap as it is for 8192 bins.
  std::mt19937 Rng(5);
  std::vector<float> X = gaussianWithOutliers(Rng, 200000);
  TensorObserver Fine = observe(X, 65536), Coarse = observe(X, 8192);
  REQUIRE(Fine.exponent() == Coarse.exponent());
  ActivationRange F = chooseRange(Fine, method(CalibrationMethod::Entropy));
  ActivationRange C = chooseRange(Coarse, method(CalibrationMethod::Entropy));
  CHECK(F.Lo == C.Lo);
  CHECK(F.Hi == C.Hi);
  // Still a clip of the outliers at 50, on the 1/64 grid of 8192 bins.
  CHECK(F.Hi < 20.0);
  CHECK(F.Hi * 64 == std::floor(F.Hi * 64));
}

TEST_CASE("mse clips outliers when rounding costs more than clipping",
          "[quant][method]") {
  // 1e6 values N(0, 1) and two at +-20: unclipped, rounding costs about
  // 1e6 * (40/255)^2 / 12 = 2050; clipped near 5, 2 * 15^2 + 1e6 *
  // (10/255)^2 / 12 = 580.
  std::mt19937 Rng(9);
  std::normal_distribution<float> G(0.0f, 1.0f);
  std::vector<float> X(1000000);
  for (float &V : X)
    V = G(Rng);
  X[0] = 20.0f;
  X[1] = -20.0f;
  ActivationRange M = chooseRange(observe(X, 2048), method(CalibrationMethod::Mse));
  CHECK(M.Hi > 3.0);
  CHECK(M.Hi < 8.0);
  CHECK(M.Lo == -M.Hi);
}

TEST_CASE("non-negative tensors keep lo at their minimum", "[quant][method]") {
  std::mt19937 Rng(5);
  std::vector<float> X = gaussianWithOutliers(Rng, 20000);
  for (float &V : X)
    V = std::fabs(V);
  TensorObserver O = observe(X, 2048);
  for (CalibrationMethod M :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
        CalibrationMethod::Entropy, CalibrationMethod::Mse})
    CHECK(chooseRange(O, method(M)).Lo == double(O.min()));
}

TEST_CASE("merged shards give bit-identical ranges and int8 parameters for "
          "every method",
          "[quant][method][merge]") {
  std::mt19937 Rng(11);
  std::vector<float> X = gaussianWithOutliers(Rng, 60000);
  for (size_t I = 0; I < X.size(); I += 3)
    X[I] *= 0.01f; // a spiky mixture, so methods disagree
  TensorObserver Whole = observe(X, 2048);
  TensorObserver Merged(2048);
  for (int S = 0; S < 4; ++S) { // round-robin shards, as --shard i/4 takes
    std::vector<float> Part;
    for (size_t I = size_t(S); I < X.size(); I += 4)
      Part.push_back(X[I]);
    Merged.merge(observe(Part, 2048));
  }
  for (CalibrationMethod M :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
        CalibrationMethod::Entropy, CalibrationMethod::Mse}) {
    ActivationRange A = chooseRange(Whole, method(M));
    ActivationRange B = chooseRange(Merged, method(M));
    CHECK(std::memcmp(&A, &B, sizeof(A)) == 0);
    AffineQuant QA = activationQuant(A.Lo, A.Hi), QB = activationQuant(B.Lo, B.Hi);
    CHECK(std::memcmp(&QA.Scale, &QB.Scale, sizeof(float)) == 0);
    CHECK(QA.ZeroPoint == QB.ZeroPoint);
  }
}
