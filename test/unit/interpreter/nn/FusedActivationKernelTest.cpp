// The fused activation of conv, conv_transpose, linear, gemm, matmul and add:
// each kernel applies it after the bias. Expected values are worked out by
// hand in the comments; the verifier's checks of the attributes are tested
// through createInferred.
#include "NNTestHarness.h"

using namespace kiln;
using namespace nntest;

namespace {

AttrMap act(const char *Kind) { return {{"activation", std::string(Kind)}}; }
AttrMap clipAct(double Lo, double Hi) {
  return {{"activation", std::string("clip")},
          {"activation_min", Lo},
          {"activation_max", Hi}};
}

} // namespace

TEST_CASE("conv applies every fused activation after the bias",
          "[nn][fused-activation]") {
  // 1x1 conv, w = 2, b = -1: y = 2x - 1 = [-3, -0.5, 1, 5].
  Tensor X = f32({1, 1, 2, 2}, {-1.0f, 0.25f, 1.0f, 3.0f});
  Tensor W = f32({1, 1, 1, 1}, {2.0f});
  Tensor B = f32({1}, {-1.0f});
  auto Run = [&](AttrMap A) {
    return requireValue(runOp("conv", {&X, &W, &B}, std::move(A)))[0];
  };
  checkClose(Run({}), {1, 1, 2, 2}, {-3, -0.5, 1, 5});
  checkClose(Run(act("none")), {1, 1, 2, 2}, {-3, -0.5, 1, 5});
  checkClose(Run(act("relu")), {1, 1, 2, 2}, {0, 0, 1, 5});
  checkClose(Run(clipAct(0, 4)), {1, 1, 2, 2}, {0, 0, 1, 4});
  checkClose(Run(clipAct(-1, 2)), {1, 1, 2, 2}, {-1, -0.5, 1, 2});
  AttrMap Leaky = act("leaky_relu");
  Leaky["activation_alpha"] = 0.1;
  checkClose(Run(Leaky), {1, 1, 2, 2}, {-0.3, -0.05, 1, 5});
  // Default alpha 0.01.
  checkClose(Run(act("leaky_relu")), {1, 1, 2, 2}, {-0.03, -0.005, 1, 5});
  // x * clamp(x/6 + 1/2, 0, 1): -3 -> 0, -0.5 -> -0.5 * 5/12, 1 -> 2/3, 5 -> 5.
  checkClose(Run(act("hard_swish")), {1, 1, 2, 2},
             {0, -0.5 * 5.0 / 12.0, 2.0 / 3.0, 5});
}

TEST_CASE("conv_transpose, linear, gemm and matmul apply the fused activation",
          "[nn][fused-activation]") {
  // conv_transpose 1x1: y = 3x + 1 = [4, -5].
  Tensor X = f32({1, 1, 1, 2}, {1.0f, -2.0f});
  Tensor W = f32({1, 1, 1, 1}, {3.0f});
  Tensor B = f32({1}, {1.0f});
  checkClose(requireValue(runOp("conv_transpose", {&X, &W, &B}, act("relu")))[0],
             {1, 1, 1, 2}, {4, 0});

  // linear: x = [1, 2], w = [[1, -1], [2, 1]], b = [0.5, -10]
  //   y = [1 - 2 + 0.5, 2 + 2 - 10] = [-0.5, -6]; clip(-1, 1) -> [-0.5, -1].
  Tensor LX = f32({1, 2}, {1.0f, 2.0f});
  Tensor LW = f32({2, 2}, {1.0f, -1.0f, 2.0f, 1.0f});
  Tensor LB = f32({2}, {0.5f, -10.0f});
  checkClose(requireValue(runOp("linear", {&LX, &LW, &LB}, clipAct(-1, 1)))[0],
             {1, 2}, {-0.5, -1});

  // gemm: a = [1, 2], b = diag(1, -1), c = [0, 1]: y = [1, -1]; relu [1, 0].
  Tensor GB = f32({2, 2}, {1.0f, 0.0f, 0.0f, -1.0f});
  Tensor GC = f32({2}, {0.0f, 1.0f});
  checkClose(requireValue(runOp("gemm", {&LX, &GB, &GC}, act("relu")))[0],
             {1, 2}, {1, 0});

  // matmul: [2, -3]^T . [1, 1] = [[2, 2], [-3, -3]]; leaky 0.5.
  Tensor MA = f32({2, 1}, {2.0f, -3.0f});
  Tensor MB = f32({1, 2}, {1.0f, 1.0f});
  AttrMap Leaky = act("leaky_relu");
  Leaky["activation_alpha"] = 0.5;
  checkClose(requireValue(runOp("matmul", {&MA, &MB}, Leaky))[0], {2, 2},
             {2, 2, -1.5, -1.5});
}

TEST_CASE("add applies its fused activation, also in f16",
          "[nn][fused-activation]") {
  // [-2, 0.5, 7] + 1 = [-1, 1.5, 8].
  Tensor A = f32({3}, {-2.0f, 0.5f, 7.0f});
  Tensor One = f32({1}, {1.0f});
  checkClose(requireValue(runOp("add", {&A, &One}, act("relu")))[0], {3},
             {0, 1.5, 8});
  checkClose(requireValue(runOp("add", {&A, &One}, clipAct(0, 6)))[0], {3},
             {0, 1.5, 6});
  checkClose(requireValue(runOp("add", {&A, &One}))[0], {3}, {-1, 1.5, 8});

  // f16: values exact in half precision.
  auto Half = [](Sizes S, std::vector<float> V) {
    std::vector<uint16_t> H;
    for (float F : V)
      H.push_back(floatToHalf(F));
    return Tensor::fromValues<uint16_t>(ElementType::F16, makeShape(S), H);
  };
  Tensor HA = Half({3}, {-2.0f, 0.5f, 7.0f}), HB = Half({3}, {1.0f, 1.0f, 1.0f});
  checkClose(requireValue(runOp("add", {&HA, &HB}, clipAct(0, 6)))[0], {3},
             {0, 1.5, 6});
}

TEST_CASE("the verifier checks the fused-activation attributes",
          "[nn][fused-activation]") {
  Tensor X = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor W = f32({1, 1, 1, 1}, {1});
  CHECK_THAT(runError("conv", {&X, &W}, act("sigmoid")),
             Catch::Contains("unknown activation 'sigmoid'"));
  AttrMap ReluWithMin = act("relu");
  ReluWithMin["activation_min"] = 0.0;
  CHECK_THAT(runError("conv", {&X, &W}, ReluWithMin),
             Catch::Contains("apply only to activation=clip"));
  CHECK_THAT(runError("conv", {&X, &W}, clipAct(2, 1)),
             Catch::Contains("min <= max"));
  AttrMap ClipWithAlpha = clipAct(0, 6);
  ClipWithAlpha["activation_alpha"] = 0.2;
  CHECK_THAT(runError("linear", {&X, &W}, ClipWithAlpha),
             Catch::Contains("activation_alpha applies only"));
  Tensor I = i64({2}, {-1, 1});
  CHECK_THAT(runError("add", {&I, &I}, act("relu")),
             Catch::Contains("floating-point"));
  CHECK(runError("add", {&I, &I}) == "");
}
