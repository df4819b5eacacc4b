// The host NNAPI device against Android's reference implementation (AOSP
// frameworks/ml/nn and the TFLite reference kernels it calls): one case per
// place where an earlier host device read the spec its own way. Each
// expected value is worked out by hand from AOSP's formula, on inputs
// chosen so that the earlier reading gives another answer.
#include "HostDeviceTestApi.h"

#include <cstdint>
#include <vector>

using namespace kiln::nnapi;
using namespace kiln::nnapi::test;

namespace {

/// MEAN over axes {1, 2} of a [1, 2, 2, C] tensor, keepDims; the output's
/// parameters are OutScale, OutZp.
int buildMean(Builder &B, int32_t Type, uint32_t C, float InScale, int32_t InZp,
              float OutScale, int32_t OutZp) {
  uint32_t X = B.operand(Type, {1, 2, 2, C}, InScale, InZp);
  uint32_t Axes = B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{1, 2});
  uint32_t Y = B.operand(Type, {1, 1, 1, C}, OutScale, OutZp);
  B.op(MEAN, {X, Axes, B.i32(1)}, {Y});
  return B.finish({X}, {Y});
}

} // namespace

TEST_CASE("AOSP: quantized MEAN sums raw values and truncates") {
  SECTION("uint8: 10 11 11 11 -> 43 / 4 = 10.75 -> 10") {
    // Rounding the dequantized mean, (7+8+8+8)/4 * 0.5 = 3.875 (real) ->
    // 7.75 quanta -> 8 + 3 = 11, is what a phone does not compute.
    Builder B;
    REQUIRE(buildMean(B, TENSOR_QUANT8_ASYMM, 2, 0.5f, 3, 0.5f, 3) == NO_ERROR);
    std::vector<uint8_t> In = {10, 200, 11, 201, 11, 201, 11, 202}, Out(2);
    run(B.M, In, Out);
    // Channel 1: 804 / 4 = 201 exactly.
    CHECK(int(Out[0]) == 10);
    CHECK(int(Out[1]) == 201);
  }
  SECTION("int8: a negative sum truncates toward zero") {
    // -5 -6 -6 -6 -> -23 / 4 = -5.75 -> -5 (C++ division), where rounding
    // would give -6; 1 2 2 2 -> 7 / 4 = 1.75 -> 1.
    Builder B;
    REQUIRE(buildMean(B, TENSOR_QUANT8_ASYMM_SIGNED, 2, 0.25f, -1, 0.25f, -1) ==
            NO_ERROR);
    std::vector<int8_t> In = {-5, 1, -6, 2, -6, 2, -6, 2}, Out(2);
    run(B.M, In, Out);
    CHECK(int(Out[0]) == -5);
    CHECK(int(Out[1]) == 1);
  }
  SECTION("an output with other parameters is refused") {
    Builder B;
    CHECK(buildMean(B, TENSOR_QUANT8_ASYMM, 1, 0.5f, 3, 0.25f, 3) == BAD_DATA);
    Builder B2;
    CHECK(buildMean(B2, TENSOR_QUANT8_ASYMM_SIGNED, 1, 0.5f, 0, 0.5f, 5) ==
          BAD_DATA);
  }
  SECTION("float MEAN is unchanged") {
    Builder B;
    REQUIRE(buildMean(B, TENSOR_FLOAT32, 1, 0, 0, 0, 0) == NO_ERROR);
    std::vector<float> In = {1, 2, 3, 5}, Out(1);
    run(B.M, In, Out);
    CHECK(Out[0] == 2.75f);
  }
}

TEST_CASE("AOSP: quantized RELU, RELU1, RELU6 keep the input's parameters") {
  for (int32_t Code : {RELU, RELU1, RELU6}) {
    INFO("operation " << Code);
    {
      // Same parameters: a clamp of the raw values. Scale 0.5, zp 10:
      // 0 is 10, 1 is 12, 6 is 22, -1 is 8.
      Builder B;
      uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 5}, 0.5f, 10);
      uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 5}, 0.5f, 10);
      B.op(Code, {X}, {Y});
      REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
      std::vector<uint8_t> In = {0, 9, 11, 20, 30}, Out(5);
      run(B.M, In, Out);
      const std::vector<uint8_t> Expected =
          Code == RELU    ? std::vector<uint8_t>{10, 10, 11, 20, 30}
          : Code == RELU1 ? std::vector<uint8_t>{8, 9, 11, 12, 12}
                          : std::vector<uint8_t>{10, 10, 11, 20, 22};
      CHECK(Out == Expected);
    }
    {
      // Other output parameters: refused (AOSP would replace them on an
      // internal operand and fail a model output).
      Builder B;
      uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 5}, 0.5f, 0);
      uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 5}, 0.25f, -128);
      B.op(Code, {X}, {Y});
      CHECK(B.finish({X}, {Y}) == BAD_DATA);
    }
  }
}

namespace {

/// A float CONV_2D of a [1, 4, 4, 1] input with a [1, K, K, 1] filter and
/// the same padding on every side.
int buildPaddedConv(Builder &B, uint32_t K, int32_t Pad) {
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4, 4, 1});
  uint32_t F = B.constant(TENSOR_FLOAT32, {1, K, K, 1},
                          std::vector<float>(size_t(K) * K, 1.0f));
  uint32_t Bias = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{0});
  const uint32_t O = 4 + 2 * uint32_t(Pad) - K + 1;
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, O, O, 1});
  B.op(CONV_2D,
       {X, F, Bias, B.i32(Pad), B.i32(Pad), B.i32(Pad), B.i32(Pad), B.i32(1),
        B.i32(1), B.i32(FUSED_NONE)},
       {Y});
  return B.finish({X}, {Y});
}

/// A float pool of a [1, 4, 4, 1] input, window K x K, stride 1.
int buildPaddedPool(Builder &B, int32_t Code, uint32_t K, int32_t Pad) {
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4, 4, 1});
  const uint32_t O = 4 + 2 * uint32_t(Pad) - K + 1;
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, O, O, 1});
  B.op(Code,
       {X, B.i32(Pad), B.i32(Pad), B.i32(Pad), B.i32(Pad), B.i32(1), B.i32(1),
        B.i32(int32_t(K)), B.i32(int32_t(K)), B.i32(FUSED_NONE)},
       {Y});
  return B.finish({X}, {Y});
}

} // namespace

TEST_CASE("AOSP: padding must stay below the filter") {
  Builder Ok3, Bad3, Bad1;
  CHECK(buildPaddedConv(Ok3, 3, 2) == NO_ERROR);
  CHECK(buildPaddedConv(Bad3, 3, 3) == BAD_DATA);
  CHECK(buildPaddedConv(Bad1, 1, 1) == BAD_DATA); // a 1x1 convolution, padded
  for (int32_t Code : {AVERAGE_POOL_2D, MAX_POOL_2D}) {
    INFO("operation " << Code);
    Builder Ok, Bad;
    CHECK(buildPaddedPool(Ok, Code, 2, 1) == NO_ERROR);
    CHECK(buildPaddedPool(Bad, Code, 2, 2) == BAD_DATA);
  }
}

namespace {

/// A quantized binary operation of two [1, 2] uint8 inputs.
int buildQuantBinary(Builder &B, int32_t Code, float S1, float S2, float SOut) {
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, S1, 0);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, S2, 0);
  uint32_t Z = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, SOut, 0);
  B.op(Code, {X, Y, B.i32(FUSED_NONE)}, {Z});
  return B.finish({X, Y}, {Z});
}

/// A per-tensor quantized 1x1 CONV_2D with scales In, W and Out.
int buildQuantConv(Builder &B, float In, float W, float Out) {
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, In, 0);
  uint32_t F = B.constant(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1},
                          std::vector<uint8_t>{130}, W, 128);
  uint32_t Bias = B.constant(TENSOR_INT32, {1}, std::vector<int32_t>{0}, In * W);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, Out, 0);
  B.op(CONV_2D,
       {X, F, Bias, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
        B.i32(FUSED_NONE)},
       {Y});
  return B.finish({X}, {Y});
}

} // namespace

TEST_CASE("AOSP: quantized scale preconditions") {
  SECTION("MUL: the output scale must exceed the inputs' product") {
    Builder Ok, Equal, Below;
    CHECK(buildQuantBinary(Ok, MUL, 0.5f, 0.25f, 0.2f) == NO_ERROR);
    CHECK(buildQuantBinary(Equal, MUL, 0.5f, 0.25f, 0.125f) == BAD_DATA);
    CHECK(buildQuantBinary(Below, MUL, 0.5f, 0.25f, 0.1f) == BAD_DATA);
  }
  SECTION("ADD: the output multiplier 2 max(s1, s2) / (2^20 s_out) below 1") {
    Builder Ok, Bad;
    // 2 * 1 / 2^20 / 2^-20 = 2; with s_out = 2^-18 it is 0.5.
    CHECK(buildQuantBinary(Ok, ADD, 1.0f, 0.5f, 1.0f / (1 << 18)) == NO_ERROR);
    CHECK(buildQuantBinary(Bad, ADD, 1.0f, 0.5f, 1.0f / (1 << 20)) == BAD_DATA);
  }
  SECTION("CONV_2D below level 29: output scale above input x filter") {
    // 0.5 * 0.25 = 0.125 >= 0.1: refused at 28, accepted at 29.
    {
      ScopedEnv L("KILN_NNAPI_HOST_FEATURE_LEVEL", "28");
      Builder Bad, Ok;
      CHECK(buildQuantConv(Bad, 0.5f, 0.25f, 0.1f) == BAD_DATA);
      CHECK(buildQuantConv(Ok, 0.5f, 0.25f, 0.2f) == NO_ERROR);
    }
    Builder Ok29;
    CHECK(buildQuantConv(Ok29, 0.5f, 0.25f, 0.1f) == NO_ERROR);
  }
  SECTION("quantized TANH needs level 29") {
    auto Build = [](Builder &B) {
      uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 4}, 0.05f, 128);
      uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 4}, 1.0f / 128, 128);
      B.op(TANH, {X}, {Y});
      return B.finish({X}, {Y});
    };
    {
      ScopedEnv L("KILN_NNAPI_HOST_FEATURE_LEVEL", "28");
      Builder B;
      CHECK(Build(B) == BAD_DATA);
    }
    Builder B29;
    CHECK(Build(B29) == NO_ERROR);
  }
}

TEST_CASE("AOSP: relaxed float32, as the reference and as a strict fp16 driver") {
  // FULLY_CONNECTED of x = [2048, 1, 1, 1 + 2^-12] with weights
  // [1, 1, 1, 1 + 2^-12]: 2051 + 2^-11 + 2^-24 in fp32 arithmetic. An fp16
  // driver holds the weight and input 1 + 2^-12 as 1 (below half an fp16
  // ulp), and its accumulator steps by 2 above 2048: each of the three
  // additions of 1 after the 2048 ties back to the even 2048.
  auto Build = [](Builder &B) {
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4});
    const float Tiny = 1.0f + 1.0f / 4096;
    uint32_t W = B.constant(TENSOR_FLOAT32, {1, 4},
                            std::vector<float>{1, 1, 1, Tiny});
    uint32_t Bias = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{0});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 1});
    B.op(FULLY_CONNECTED, {X, W, Bias, B.i32(FUSED_NONE)}, {Y});
    B.check(api().ANeuralNetworksModel_relaxComputationFloat32toFloat16(B.M, true));
    return B.finish({X}, {Y});
  };
  const float Tiny = 1.0f + 1.0f / 4096;
  const std::vector<float> In = {2048, 1, 1, Tiny};
  SECTION("the reference ignores the flag: fp32") {
    Builder B;
    REQUIRE(Build(B) == NO_ERROR);
    std::vector<float> Out(1);
    run(B.M, In, Out);
    CHECK(Out[0] == 2048.0f + 1 + 1 + Tiny * Tiny);
  }
  SECTION("KILN_NNAPI_HOST_RELAXED=fp16: weights, inputs and sums in fp16") {
    ScopedEnv Mode("KILN_NNAPI_HOST_RELAXED", "fp16");
    Builder B;
    REQUIRE(Build(B) == NO_ERROR);
    std::vector<float> Out(1);
    run(B.M, In, Out);
    CHECK(Out[0] == 2048.0f);
  }
  SECTION("fp16 outputs round to nearest even: 1000.3 -> 1000.5") {
    ScopedEnv Mode("KILN_NNAPI_HOST_RELAXED", "fp16");
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2});
    B.op(RELU, {X}, {Y});
    B.check(api().ANeuralNetworksModel_relaxComputationFloat32toFloat16(B.M, true));
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> X2 = {Tiny, 1000.3f}, Out(2);
    run(B.M, X2, Out);
    CHECK(Out[0] == 1.0f);    // below half an fp16 ulp (2^-11) of 1
    CHECK(Out[1] == 1000.5f); // fp16 steps of 0.5 in [512, 1024)
  }
}

TEST_CASE("AOSP: quantized RESIZE_BILINEAR rounds as TFLite") {
  // A [1, 1, 2, 1] row resized to width 4 (asymmetric: sources 0, 0.5, 1,
  // 1.5): the midpoint is an exact half, the rest copies an input.
  auto Build = [](Builder &B, int32_t Type) {
    uint32_t X = B.operand(Type, {1, 1, 2, 1}, 0.5f, 0);
    uint32_t Y = B.operand(Type, {1, 1, 4, 1}, 0.5f, 0);
    B.op(RESIZE_BILINEAR, {X, B.i32(4), B.i32(1)}, {Y});
    return B.finish({X}, {Y});
  };
  SECTION("TFLite 2.9 (the default): + 0.5, then truncation toward zero") {
    Builder U, S;
    REQUIRE(Build(U, TENSOR_QUANT8_ASYMM) == NO_ERROR);
    std::vector<uint8_t> UIn = {10, 15}, UOut(4); // 12.5 + 0.5 -> 13
    run(U.M, UIn, UOut);
    CHECK(UOut == std::vector<uint8_t>{10, 13, 15, 15});
    // int8 takes the same float template (AOSP calls it for every type):
    // an exact -10 becomes -9.5, truncated to -9; -12.5 becomes -12.
    REQUIRE(Build(S, TENSOR_QUANT8_ASYMM_SIGNED) == NO_ERROR);
    std::vector<int8_t> SIn = {-10, -15}, SOut(4);
    run(S.M, SIn, SOut);
    CHECK(std::vector<int>(SOut.begin(), SOut.end()) ==
          std::vector<int>{-9, -12, -14, -14});
  }
  SECTION("KILN_NNAPI_HOST_RESIZE_ROUNDING=truncate: older TFLite") {
    ScopedEnv Mode("KILN_NNAPI_HOST_RESIZE_ROUNDING", "truncate");
    Builder U, S;
    REQUIRE(Build(U, TENSOR_QUANT8_ASYMM) == NO_ERROR);
    std::vector<uint8_t> UIn = {10, 15}, UOut(4); // 12.5 -> 12
    run(U.M, UIn, UOut);
    CHECK(UOut == std::vector<uint8_t>{10, 12, 15, 15});
    REQUIRE(Build(S, TENSOR_QUANT8_ASYMM_SIGNED) == NO_ERROR);
    std::vector<int8_t> SIn = {-10, -15}, SOut(4); // -12.5 -> -12
    run(S.M, SIn, SOut);
    CHECK(std::vector<int>(SOut.begin(), SOut.end()) ==
          std::vector<int>{-10, -12, -15, -15});
  }
}

TEST_CASE("AOSP: scale arithmetic in float, where AOSP uses float") {
  SECTION("QUANTIZE: 0.25f / 0.1f is 2.5 in float (-> 3), 2.49999996 in double") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2});
    uint32_t Q = B.operand(TENSOR_QUANT8_ASYMM, {2}, 0.1f, 0);
    B.op(QUANTIZE, {X}, {Q});
    REQUIRE(B.finish({X}, {Q}) == NO_ERROR);
    std::vector<float> In = {0.25f, 0.35f};
    std::vector<uint8_t> Out(2);
    run(B.M, In, Out);
    CHECK(Out == std::vector<uint8_t>{3, 4}); // 0.35f / 0.1f = 3.5f -> 4
  }
  SECTION("RELU6 bound: 6 / 2.4f is 2.5 in float (-> 3), 2.4999999 in double") {
    // ADD of 8 and 0 (scale 1) into scale 2.4f: 8 / 2.4 = 3.33 -> 3, which
    // the float bound 3 keeps and a double bound 2 would clamp.
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1}, 1.0f, 0);
    uint32_t Zero = B.constant(TENSOR_QUANT8_ASYMM, {1}, std::vector<uint8_t>{0},
                               1.0f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1}, 2.4f, 0);
    B.op(ADD, {X, Zero, B.i32(FUSED_RELU6)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {8}, Out(1);
    run(B.M, In, Out);
    CHECK(int(Out[0]) == 3);
  }
  // s_in 0.0644f, s_w 0.0478f, s_out 0.2718f: the multiplier from the
  // float product 0.0644f * 0.0478f (AOSP's GetQuantizedConvolutionMultipler
  // and mulQuant8) is 1556589662 * 2^-37, from the double product
  // 1556589712 * 2^-37; an accumulator of 7990 = 94 * 85 gives 90.4922...
  // -> 90 with the first and 91 with the second (TFLite's rounding).
  SECTION("CONV_2D, per-tensor and per-channel: the float product") {
    for (bool PerChannel : {false, true}) {
      INFO("per-channel " << PerChannel);
      Builder B;
      uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1}, 0.0644f, 0);
      uint32_t F;
      if (PerChannel) {
        F = B.operand(TENSOR_QUANT8_SYMM_PER_CHANNEL, {1, 1, 1, 1});
        const float Scales[1] = {0.0478f};
        ANeuralNetworksSymmPerChannelQuantParams P{0, 1, Scales};
        B.check(api().ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
            B.M, int32_t(F), &P));
        B.Keep.push_back({85});
        B.check(api().ANeuralNetworksModel_setOperandValue(
            B.M, int32_t(F), B.Keep.back().data(), 1));
      } else {
        F = B.constant(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1},
                       std::vector<uint8_t>{128 + 85}, 0.0478f, 128);
      }
      uint32_t Bias = B.constant(TENSOR_INT32, {1}, std::vector<int32_t>{0},
                                 PerChannel ? 0.0f : 0.0644f * 0.0478f);
      uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1}, 0.2718f, 0);
      B.op(CONV_2D,
           {X, F, Bias, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1),
            B.i32(1), B.i32(FUSED_NONE)},
           {Y});
      REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
      std::vector<uint8_t> In = {94}, Out(1);
      run(B.M, In, Out);
      CHECK(int(Out[0]) == 90);
    }
  }
  SECTION("MUL: the float product") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1}, 0.0644f, 0);
    uint32_t W = B.constant(TENSOR_QUANT8_ASYMM, {1}, std::vector<uint8_t>{85},
                            0.0478f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1}, 0.2718f, 0);
    B.op(MUL, {X, W, B.i32(FUSED_NONE)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {94}, Out(1);
    run(B.M, In, Out);
    CHECK(int(Out[0]) == 90);
  }
}

namespace {

/// A one-operation quantized model, [1, N] in and out, with the operation's
/// extra inputs Extra (built by the caller's lambda); runs In through it.
template <typename T>
std::vector<int> runQuant(int32_t Code, int32_t Type, float InScale, int32_t InZp,
                          float OutScale, int32_t OutZp, const std::vector<T> &In,
                          std::vector<uint32_t> Extra = {}) {
  Builder B;
  const uint32_t N = uint32_t(In.size());
  uint32_t X = B.operand(Type, {1, N}, InScale, InZp);
  uint32_t Y = B.operand(Type, {1, N}, OutScale, OutZp);
  std::vector<uint32_t> Inputs = {X};
  Inputs.insert(Inputs.end(), Extra.begin(), Extra.end());
  B.op(Code, Inputs, {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<T> Out(N);
  run(B.M, In, Out);
  return std::vector<int>(Out.begin(), Out.end());
}

} // namespace

// Expected values: AOSP's own NNAPI test specs (runtime/test/specs: exact
// vectors), and the fixed-point arithmetic of TFLite's kernels and gemmlowp
// worked out by an independent implementation checked against gemmlowp's
// fixedpoint.h (the cases where it differs from float arithmetic rounded).
TEST_CASE("AOSP: quantized LOGISTIC, TANH, SOFTMAX, HARD_SWISH in fixed point") {
  SECTION("LOGISTIC: AOSP's logistic_quant8_1 and logistic_quant8_signed") {
    CHECK(runQuant<uint8_t>(LOGISTIC, TENSOR_QUANT8_ASYMM, 0.5f, 0, 1.0f / 256, 0,
                            {0, 1, 2, 127}) == std::vector<int>{128, 159, 187, 255});
    CHECK(runQuant<int8_t>(LOGISTIC, TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, -128,
                           1.0f / 256, -128, {-128, -127, -126, -1}) ==
          std::vector<int>{0, 31, 59, 127});
  }
  SECTION("LOGISTIC saturates at the input radius: inclusive for int8") {
    // Scale 4: the multiplier 4 * 2^27 = 2^29 has left shift 30, so the
    // radius is floor(15 * 2^27 / 2^30) = 1. int8 (reference integer
    // kernel) saturates at |x| >= 1: logistic(-4) gives -128, not
    // round(256 * 0.018) - 128 = -123. uint8 (optimized kernel) saturates
    // only beyond it and computes logistic(-4) = 5 and logistic(4) = 251.
    CHECK(runQuant<int8_t>(LOGISTIC, TENSOR_QUANT8_ASYMM_SIGNED, 4.0f, 0,
                           1.0f / 256, -128, {-1, 0, 1}) ==
          std::vector<int>{-128, 0, 127});
    CHECK(runQuant<uint8_t>(LOGISTIC, TENSOR_QUANT8_ASYMM, 4.0f, 128, 1.0f / 256,
                            0, {126, 127, 128, 129, 130}) ==
          std::vector<int>{0, 5, 128, 251, 255});
  }
  SECTION("TANH: AOSP's tanh_v1_2 and tanh_quant8_signed points") {
    // round(128 tanh(0.05 (x - zp))) + 128 (uint8) and without + 128 (int8).
    CHECK(runQuant<uint8_t>(TANH, TENSOR_QUANT8_ASYMM, 0.05f, 100, 1.0f / 128, 128,
                            {0, 90, 100, 110, 255}) ==
          std::vector<int>{0, 69, 128, 187, 255});
    CHECK(runQuant<int8_t>(TANH, TENSOR_QUANT8_ASYMM_SIGNED, 0.05f, -28,
                           1.0f / 128, 0, {-128, -38, -28, -18, 127}) ==
          std::vector<int>{-128, -59, 0, 59, 127});
  }
  SECTION("SOFTMAX: AOSP's softmax_quant8_2 and softmax_quant8_signed") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {2, 5}, 0.5f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {2, 5}, 1.0f / 256, 0);
    B.op(SOFTMAX, {X, B.f32(1.0f)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {1, 2, 3, 4, 5, 255, 254, 253, 252, 251}, Out(10);
    run(B.M, In, Out);
    CHECK(std::vector<int>(Out.begin(), Out.end()) ==
          std::vector<int>{15, 24, 40, 67, 110, 110, 67, 40, 24, 15});
    Builder S;
    uint32_t SX = S.operand(TENSOR_QUANT8_ASYMM_SIGNED, {2, 5}, 0.5f, -128);
    uint32_t SY = S.operand(TENSOR_QUANT8_ASYMM_SIGNED, {2, 5}, 1.0f / 256, -128);
    S.op(SOFTMAX, {SX, S.f32(1.0f)}, {SY});
    REQUIRE(S.finish({SX}, {SY}) == NO_ERROR);
    std::vector<int8_t> SIn = {-127, -126, -125, -124, -123, 127, 126, 125, 124, 123},
                        SOut(10);
    run(S.M, SIn, SOut);
    CHECK(std::vector<int>(SOut.begin(), SOut.end()) ==
          std::vector<int>{-113, -104, -88, -61, -18, -18, -61, -88, -104, -113});
  }
  SECTION("HARD_SWISH: AOSP's hard_swish spec, uint8 and int8") {
    const std::vector<uint8_t> U = {186, 178, 167, 18, 111, 145, 128, 19, 13, 125,
                                    139, 254, 126, 19, 239, 187, 246, 105, 143, 248};
    CHECK(runQuant<uint8_t>(HARD_SWISH, TENSOR_QUANT8_ASYMM, 0.078125f, 128,
                            0.078125f, 128, U) ==
          std::vector<int>{186, 178, 167, 128, 123, 140, 128, 128, 128, 127,
                           135, 254, 127, 128, 239, 187, 246, 123, 138, 248});
    const std::vector<int8_t> S = {58, 50, 39, -110, -17, 17, 0, -109, -115, -3,
                                   11, 126, -2, -109, 111, 59, 118, -23, 15, 120};
    CHECK(runQuant<int8_t>(HARD_SWISH, TENSOR_QUANT8_ASYMM_SIGNED, 0.078125f, 0,
                           0.078125f, 0, S) ==
          std::vector<int>{58, 50, 39, 0, -5, 12, 0, 0, 0, -1,
                           7, 126, -1, 0, 111, 59, 118, -5, 10, 120});
  }
  SECTION("HARD_SWISH: where int16 fixed point and float rounding part") {
    // In 0.27438486f zp 86, out 0.11378625f zp 39: 131 is x = 12.3473,
    // whose hardswish is 108.513 output quanta: 148 in float arithmetic,
    // 147 in TFLite's int16 fixed point (likewise 149.507 and 190.501).
    CHECK(runQuant<uint8_t>(HARD_SWISH, TENSOR_QUANT8_ASYMM, 0.27438486f, 86,
                            0.11378625f, 39, {131, 148, 165}) ==
          std::vector<int>{147, 188, 229});
  }
}

TEST_CASE("AOSP: quantized CONCATENATION rescales as TFLite, in float") {
  // 21 at scale 0.066f, zero point 60, into 0.156f, 22: TFLite multiplies
  // by 1 / 0.156f: 0.066f * (1 / 0.156f) = 0.42307693f, bias -25.384615f,
  // 21 * 0.42307693f - 25.384615f = -16.5 exactly -> -17, + 22 = 5; the
  // quotient 0.066f / 0.156f = 0.42307690f gives -16.499998 -> -16 -> 6.
  Builder B;
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 1}, 0.066f, 60);
  uint32_t Same = B.constant(TENSOR_QUANT8_ASYMM, {1, 1}, std::vector<uint8_t>{40},
                             0.156f, 22);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, 0.156f, 22);
  B.op(CONCATENATION, {X, Same, B.i32(1)}, {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<uint8_t> In = {21}, Out(2);
  run(B.M, In, Out);
  CHECK(std::vector<int>(Out.begin(), Out.end()) == std::vector<int>{5, 40});
}
