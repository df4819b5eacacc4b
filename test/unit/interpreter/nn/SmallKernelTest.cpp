// softmax / log_softmax, depth_to_space / space_to_depth and dropout:
// hand-computed values, the ONNX docs' examples, and a naive softmax loop.
#include "NNTestHarness.h"

using namespace kiln;
using namespace nntest;

TEST_CASE("softmax and log_softmax: hand values and stability", "[nn][softmax]") {
  // e^1 = 2.718281828, e^2 = 7.389056099, e^3 = 20.08553692, sum 30.19287485:
  // softmax = [0.0900305732, 0.2447284711, 0.6652409558],
  // log_softmax = x - 3 - log(e^-2 + e^-1 + 1) = x - 3.4076059645.
  for (float Shift : {0.0f, 1000.0f}) { // 1000: exp would overflow unshifted
    INFO("shift " << Shift);
    Tensor X = f32({1, 3}, {1 + Shift, 2 + Shift, 3 + Shift});
    auto Y = requireValue(runOp("softmax", {&X}));
    checkClose(Y[0], {1, 3}, {0.0900305732, 0.2447284711, 0.6652409558});
    Y = requireValue(runOp("log_softmax", {&X}));
    checkClose(Y[0], {1, 3},
               {-2.4076059645, -1.4076059645, -0.4076059645}, 1e-4, 1e-5);
  }
}

TEST_CASE("softmax along every axis matches a naive loop", "[nn][softmax]") {
  Sizes XS = {2, 3, 4};
  Tensor X = randomF32(XS, 3);
  std::vector<double> XV = values(X);
  for (int64_t Axis : {0, 1, 2, -1}) {
    INFO("axis " << Axis);
    size_t A = size_t(Axis < 0 ? Axis + 3 : Axis);
    std::vector<double> Soft(XV.size()), LogSoft(XV.size());
    for (int64_t I = 0; I < count(XS); ++I) {
      Sizes C = coordsOf(I, XS);
      double Sum = 0;
      for (int64_t J = 0; J < XS[A]; ++J) {
        Sizes CJ = C;
        CJ[A] = J;
        Sum += std::exp(XV[size_t((CJ[0] * 3 + CJ[1]) * 4 + CJ[2])]);
      }
      Soft[size_t(I)] = std::exp(XV[size_t(I)]) / Sum;
      LogSoft[size_t(I)] = XV[size_t(I)] - std::log(Sum);
    }
    auto Y = requireValue(runOp("softmax", {&X}, {{"axis", Axis}}, 1, 3));
    checkClose(Y[0], XS, Soft);
    Y = requireValue(runOp("log_softmax", {&X}, {{"axis", Axis}}, 1, 3));
    checkClose(Y[0], XS, LogSoft);
  }
}

TEST_CASE("depth_to_space: the ONNX examples, DCR and CRD", "[nn][d2s]") {
  // x[0, c, h, w] = 9c + 3h + w (c < 8, h < 2, w < 3), as in the ONNX docs.
  std::vector<float> XV;
  for (int C = 0; C < 8; ++C)
    for (int H = 0; H < 2; ++H)
      for (int W = 0; W < 3; ++W)
        XV.push_back(float(9 * C + 3 * H + W));
  Tensor X = f32({1, 8, 2, 3}, XV);
  auto Y = requireValue(runOp("depth_to_space", {&X}, {{"blocksize", int64_t(2)}}));
  checkClose(Y[0], {1, 2, 4, 6},
             {0,  18, 1,  19, 2,  20, 36, 54, 37, 55, 38, 56,
              3,  21, 4,  22, 5,  23, 39, 57, 40, 58, 41, 59,
              9,  27, 10, 28, 11, 29, 45, 63, 46, 64, 47, 65,
              12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68});
  Y = requireValue(runOp("depth_to_space", {&X}, {{"blocksize", int64_t(2)},
                                                  {"mode", std::string("CRD")}}));
  checkClose(Y[0], {1, 2, 4, 6},
             {0,  9,  1,  10, 2,  11, 18, 27, 19, 28, 20, 29,
              3,  12, 4,  13, 5,  14, 21, 30, 22, 31, 23, 32,
              36, 45, 37, 46, 38, 47, 54, 63, 55, 64, 56, 65,
              39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68});
}

TEST_CASE("space_to_depth inverts depth_to_space (DCR)", "[nn][d2s]") {
  // space_to_depth on 1x1x2x2 [a b; c d], blocksize 2: channels a, b, c, d.
  Tensor S = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  auto Y = requireValue(runOp("space_to_depth", {&S}, {{"blocksize", int64_t(2)}}));
  checkClose(Y[0], {1, 4, 1, 1}, {1, 2, 3, 4});
  Tensor X = randomF32({2, 3, 6, 4}, 11);
  Y = requireValue(runOp("space_to_depth", {&X}, {{"blocksize", int64_t(2)}}));
  auto Back = requireValue(
      runOp("depth_to_space", {&Y[0]}, {{"blocksize", int64_t(2)}}));
  checkClose(Back[0], {2, 3, 6, 4}, values(X), 0, 0);
  // Any element type moves: i64 [1, 4, 1, 1] -> [1, 1, 2, 2].
  Tensor I = i64({1, 4, 1, 1}, {7, 8, 9, 10});
  Y = requireValue(runOp("depth_to_space", {&I}, {{"blocksize", int64_t(2)}}));
  checkClose(Y[0], {1, 1, 2, 2}, {7, 8, 9, 10});
}

TEST_CASE("dropout: identity with an all-true mask", "[nn][dropout]") {
  Tensor X = f32({2, 2}, {1, -2, 3, -4});
  auto Y = requireValue(runOp("dropout", {&X}, {{"ratio", 0.3}}, 2));
  checkClose(Y[0], {2, 2}, {1, -2, 3, -4}, 0, 0);
  REQUIRE(Y[1].type().Elem == ElementType::Bool);
  checkClose(Y[1], {2, 2}, {1, 1, 1, 1}, 0, 0);
  // training = true with ratio 0 is still the identity.
  Tensor Ratio = f32({}, {0});
  Tensor Training = Tensor::fromValues<uint8_t>(ElementType::Bool, {}, std::vector<uint8_t>{1});
  Y = requireValue(runOp("dropout", {&X, &Ratio, &Training}, {}, 2));
  checkClose(Y[0], {2, 2}, {1, -2, 3, -4}, 0, 0);
  // Ratio 1 would divide by zero.
  Tensor One = f32({}, {1});
  CHECK(runError("dropout", {&X, &One, &Training}).find("must be below 1") !=
        std::string::npos);
}

TEST_CASE("dropout: training mode draws numpy's legacy MT19937 sequence",
          "[nn][dropout]") {
  // numpy: np.random.seed(0); np.random.uniform(0, 1, 8) is the well-known
  // [0.5488135, 0.71518937, 0.60276338, 0.54488318, 0.4236548, 0.64589411,
  //  0.43758721, 0.891773]. With ratio 0.5 the mask (u >= 0.5) is
  // [1,1,1,1,0,1,0,1], and kept values are scaled by 1 / (1 - 0.5) = 2.
  Tensor X = f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor Half = f32({}, {0.5});
  Tensor Training = Tensor::fromValues<uint8_t>(ElementType::Bool, {}, std::vector<uint8_t>{1});
  auto Y = requireValue(runOp("dropout", {&X, &Half, &Training}, {}, 2));
  checkClose(Y[0], {2, 4}, {2, 4, 6, 8, 0, 12, 0, 16}, 0, 0);
  checkClose(Y[1], {2, 4}, {1, 1, 1, 1, 0, 1, 0, 1}, 0, 0);
  // Another seed, another mask: np.random.seed(1); np.random.uniform(0,1,4)
  // is [0.417022, 0.72032449, 0.00011437, 0.30233257]; with ratio 0.4 the
  // mask is [1,1,0,0] and the scale 1 / (1 - 0.4f) is 1.6666666f.
  Tensor X4 = f32({4}, {3, 3, 3, 3});
  Tensor R = f32({}, {0.4f});
  Y = requireValue(runOp("dropout", {&X4, &R, &Training}, {{"seed", int64_t(1)}}, 2));
  float Scale = 1.0f / (1.0f - 0.4f);
  checkClose(Y[0], {4}, {3 * Scale, 3 * Scale, 0, 0}, 0, 0);
}
