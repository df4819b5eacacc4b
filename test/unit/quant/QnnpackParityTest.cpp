// Requantization parity with PyTorch's QNNPACK kernels
// (frontends/torchscript/QnnpackParity.h): the weight scale kiln stores
// makes kiln's x * w' / y equal PyTorch's (w * x) * (1 / y), and biases are
// rounded as PyTorch quantizes them.
#include "frontends/torchscript/QnnpackParity.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace kiln::ts_import;

namespace {
/// Steps of one ulp between two positive floats.
int ulpsApart(float A, float B) {
  int N = 0;
  for (float V = std::min(A, B); V < std::max(A, B) && N < 1000; ++N)
    V = std::nextafter(V, INFINITY);
  return N;
}
} // namespace

TEST_CASE("the two multipliers differ where numpy says they do",
          "[quant][qnnpack]") {
  // Found with numpy float32: (w * x) * (1 / y) = 0.00195670360699296,
  // x * w / y = 0.0019567038398236036.
  float W = 0.002580900676548481f, X = 0.04452715814113617f,
        Y = 0.05873151123523712f;
  CHECK(pytorchMultiplier(W, X, Y) == 0.00195670360699296f);
  CHECK(kilnMultiplier(W, X, Y) == 0.0019567038398236036f);
  float P = weightScaleForParity(W, X, Y);
  CHECK(P != W);
  CHECK(kilnMultiplier(P, X, Y) == pytorchMultiplier(W, X, Y));
}

TEST_CASE("a parity scale exists near every weight scale", "[quant][qnnpack]") {
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> WD(1e-4f, 1e-1f), XD(1e-3f, 1e-1f),
      YD(1e-3f, 1.0f);
  int Differ = 0, Mended = 0;
  const int N = 20000;
  for (int I = 0; I < N; ++I) {
    float W = WD(Rng), X = XD(Rng), Y = YD(Rng);
    float Want = pytorchMultiplier(W, X, Y);
    if (kilnMultiplier(W, X, Y) == Want) {
      CHECK(weightScaleForParity(W, X, Y) == W);
      continue;
    }
    ++Differ;
    float P = weightScaleForParity(W, X, Y);
    if (kilnMultiplier(P, X, Y) == Want) {
      ++Mended;
      CHECK(ulpsApart(P, W) <= 64);
    } else {
      CHECK(P == W); // no scale near W reaches it: W is kept
    }
  }
  // About a quarter differ (numpy: 536 of 2000). A float x * w' / y cannot
  // reach every value (a step of w' can move it by two ulps), so about
  // half of those are mended (this seed, with libstdc++: 3088 of 5492).
  CHECK(Differ > N / 5);
  CHECK(Differ < N / 3);
  CHECK(Mended > Differ / 3);
}

TEST_CASE("biases round as PyTorch quantizes them", "[quant][qnnpack]") {
  // Scale 0.5 * 0.25 = 0.125: 1.0 -> 8; -0.3 -> -2.4 -> -2 (nearest, not
  // truncated); ties to even: 1.5 levels -> 2, 2.5 levels -> 2, -2.5 -> -2.
  CHECK(pytorchBiasLevel(1.0f, 0.5, 0.25) == 8);
  CHECK(pytorchBiasLevel(-0.3f, 0.5, 0.25) == -2);
  CHECK(pytorchBiasLevel(0.1875f, 0.5, 0.25) == 2);
  CHECK(pytorchBiasLevel(0.3125f, 0.5, 0.25) == 2);
  CHECK(pytorchBiasLevel(-0.3125f, 0.5, 0.25) == -2);
  // Saturated, and NaN to 0.
  CHECK(pytorchBiasLevel(1e30f, 0.5, 0.25) == 2147483647);
  CHECK(pytorchBiasLevel(-1e30f, 0.5, 0.25) == -2147483647 - 1);
  CHECK(pytorchBiasLevel(NAN, 0.5, 0.25) == 0);
}
