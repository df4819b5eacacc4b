// The host NNAPI device (libkiln_nnapi_host.so), dlopened by path as the
// executor does: its kernels against naive loops and hand-computed values,
// the checks a driver makes, the compilation cache and execution reuse.
#include "HostDeviceTestApi.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln::nnapi;
using namespace kiln::nnapi::test;

namespace {

std::string tempDir() {
  char Template[] = "/tmp/kiln-nnapi-host-XXXXXX";
  REQUIRE(mkdtemp(Template));
  return Template;
}

std::string readFile(const std::string &Path) {
  std::ifstream F(Path);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

/// A float model with one ADD: x + 1.
void buildAddOne(Builder &B) {
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4});
  uint32_t One = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{1.0f});
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 4});
  B.op(ADD, {X, One, B.i32(FUSED_NONE)}, {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
}

} // namespace

TEST_CASE("host NNAPI device: every function and the two devices") {
  Api &A = api();
  uint32_t N = 0;
  REQUIRE(A.ANeuralNetworks_getDeviceCount(&N) == NO_ERROR);
  REQUIRE(N == 2);
  const char *Names[2];
  int32_t Types[2];
  for (uint32_t I = 0; I < 2; ++I) {
    ANeuralNetworksDevice *D = nullptr;
    REQUIRE(A.ANeuralNetworks_getDevice(I, &D) == NO_ERROR);
    REQUIRE(A.ANeuralNetworksDevice_getName(D, &Names[I]) == NO_ERROR);
    REQUIRE(A.ANeuralNetworksDevice_getType(D, &Types[I]) == NO_ERROR);
    int64_t Level = 0;
    REQUIRE(A.ANeuralNetworksDevice_getFeatureLevel(D, &Level) == NO_ERROR);
    CHECK(Level == FeatureLevel6); // KILN_NNAPI_HOST_FEATURE_LEVEL unset: the highest
  }
  CHECK(std::string(Names[0]) == "kiln-host-accelerator");
  CHECK(Types[0] == DEVICE_ACCELERATOR);
  CHECK(std::string(Names[1]) == "nnapi-reference");
  CHECK(Types[1] == DEVICE_CPU);
}

TEST_CASE("host NNAPI device: float CONV_2D 3x3, padding 1, stride 2, RELU6") {
  const uint32_t H = 5, W = 5, IC = 2, OC = 3, K = 3, OH = 3, OW = 3;
  std::vector<float> Input = values(H * W * IC, -2, 2, 1);
  std::vector<float> Filter = values(OC * K * K * IC, -1, 1, 2);
  std::vector<float> Bias = {0.5f, -0.25f, 3.0f};
  Builder B;
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, H, W, IC});
  uint32_t F = B.constant(TENSOR_FLOAT32, {OC, K, K, IC}, Filter);
  uint32_t Bi = B.constant(TENSOR_FLOAT32, {OC}, Bias);
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, OH, OW, OC});
  B.op(CONV_2D,
       {X, F, Bi, B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(2), B.i32(2),
        B.i32(FUSED_RELU6)},
       {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<float> Out(OH * OW * OC);
  run(B.M, Input, Out);
  for (uint32_t Oy = 0; Oy < OH; ++Oy)
    for (uint32_t Ox = 0; Ox < OW; ++Ox)
      for (uint32_t Oc = 0; Oc < OC; ++Oc) {
        float Acc = Bias[Oc];
        for (uint32_t Ky = 0; Ky < K; ++Ky)
          for (uint32_t Kx = 0; Kx < K; ++Kx) {
            int Iy = int(Oy * 2 + Ky) - 1, Ix = int(Ox * 2 + Kx) - 1;
            if (Iy < 0 || Iy >= int(H) || Ix < 0 || Ix >= int(W))
              continue;
            for (uint32_t Ic = 0; Ic < IC; ++Ic)
              Acc += Input[(size_t(Iy) * W + size_t(Ix)) * IC + Ic] *
                     Filter[((Oc * K + Ky) * K + Kx) * IC + Ic];
          }
        const float Expected = std::min(std::max(Acc, 0.0f), 6.0f);
        CHECK(Out[(Oy * OW + Ox) * OC + Oc] == Approx(Expected).margin(1e-5));
      }
}

TEST_CASE("host NNAPI device: quantized per-channel CONV_2D within 1 quantum") {
  const uint32_t H = 4, W = 4, IC = 3, OC = 4, K = 3, OH = 4, OW = 4;
  const float InScale = 0.05f, OutScale = 0.1f;
  const int32_t InZp = 128, OutZp = 100;
  const std::vector<float> WScales = {0.01f, 0.02f, 0.005f, 0.015f};
  std::vector<uint8_t> Input(H * W * IC);
  for (size_t I = 0; I < Input.size(); ++I)
    Input[I] = uint8_t((I * 37 + 11) % 256);
  std::vector<int8_t> Filter(OC * K * K * IC);
  for (size_t I = 0; I < Filter.size(); ++I)
    Filter[I] = int8_t(int(I * 53 % 255) - 127);
  std::vector<int32_t> Bias = {100, -200, 0, 3000};
  Builder B;
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, H, W, IC}, InScale, InZp);
  uint32_t F = B.constant(TENSOR_QUANT8_SYMM_PER_CHANNEL, {OC, K, K, IC}, Filter);
  ANeuralNetworksSymmPerChannelQuantParams PC{0, OC, WScales.data()};
  B.check(api().ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(B.M, int32_t(F),
                                                                         &PC));
  uint32_t Bi = B.constant(TENSOR_INT32, {OC}, Bias);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, OH, OW, OC}, OutScale, OutZp);
  B.op(CONV_2D,
       {X, F, Bi, B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(1),
        B.i32(FUSED_NONE), B.boolean(false), B.i32(1), B.i32(1)},
       {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<uint8_t> Out(OH * OW * OC);
  run(B.M, Input, Out);
  for (uint32_t Oy = 0; Oy < OH; ++Oy)
    for (uint32_t Ox = 0; Ox < OW; ++Ox)
      for (uint32_t Oc = 0; Oc < OC; ++Oc) {
        double Acc = Bias[Oc] * double(InScale) * WScales[Oc];
        for (uint32_t Ky = 0; Ky < K; ++Ky)
          for (uint32_t Kx = 0; Kx < K; ++Kx) {
            int Iy = int(Oy + Ky) - 1, Ix = int(Ox + Kx) - 1;
            if (Iy < 0 || Iy >= int(H) || Ix < 0 || Ix >= int(W))
              continue;
            for (uint32_t Ic = 0; Ic < IC; ++Ic)
              Acc += (Input[(size_t(Iy) * W + size_t(Ix)) * IC + Ic] - InZp) *
                     double(InScale) *
                     Filter[((Oc * K + Ky) * K + Kx) * IC + Ic] * WScales[Oc];
          }
        const double Q = std::clamp(std::round(Acc / OutScale) + OutZp, 0.0, 255.0);
        CHECK(std::fabs(Out[(Oy * OW + Ox) * OC + Oc] - Q) <= 1.0);
      }
}

TEST_CASE("host NNAPI device: quantized ADD of different scales, broadcast") {
  const float SA = 0.1f, SB = 0.25f, SO = 0.2f;
  const int32_t ZA = 10, ZB = 130, ZO = 120;
  Builder B;
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {2, 3}, SA, ZA);
  std::vector<uint8_t> BV = {100, 130, 200};
  uint32_t Cst = B.constant(TENSOR_QUANT8_ASYMM, {3}, BV, SB, ZB);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {2, 3}, SO, ZO);
  B.op(ADD, {X, Cst, B.i32(FUSED_NONE)}, {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<uint8_t> Input = {0, 10, 50, 128, 250, 255};
  std::vector<uint8_t> Out(6);
  run(B.M, Input, Out);
  for (size_t I = 0; I < 6; ++I) {
    const double Real = (Input[I] - ZA) * double(SA) + (BV[I % 3] - ZB) * double(SB);
    const double Q = std::clamp(std::round(Real / SO) + ZO, 0.0, 255.0);
    CHECK(std::fabs(Out[I] - Q) <= 1.0);
  }
  // Hand-computed: (0-10)*0.1 + (100-130)*0.25 = -8.5 -> -42.5 + 120 = 77.5.
  CHECK((Out[0] == 77 || Out[0] == 78));
}

TEST_CASE("host NNAPI device: DEPTHWISE_CONV_2D with multiplier 2") {
  const uint32_t H = 4, W = 4, C = 2, M = 2, OC = C * M, K = 3, OH = 2, OW = 2;
  std::vector<float> Input = values(H * W * C, -1, 1, 3);
  std::vector<float> Filter = values(K * K * OC, -1, 1, 4);
  std::vector<float> Bias = {0.1f, 0.2f, 0.3f, 0.4f};
  Builder B;
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, H, W, C});
  uint32_t F = B.constant(TENSOR_FLOAT32, {1, K, K, OC}, Filter);
  uint32_t Bi = B.constant(TENSOR_FLOAT32, {OC}, Bias);
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, OH, OW, OC});
  B.op(DEPTHWISE_CONV_2D,
       {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
        B.i32(M), B.i32(FUSED_NONE)},
       {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<float> Out(OH * OW * OC);
  run(B.M, Input, Out);
  for (uint32_t Oy = 0; Oy < OH; ++Oy)
    for (uint32_t Ox = 0; Ox < OW; ++Ox)
      for (uint32_t Oc = 0; Oc < OC; ++Oc) {
        float Acc = Bias[Oc];
        for (uint32_t Ky = 0; Ky < K; ++Ky)
          for (uint32_t Kx = 0; Kx < K; ++Kx)
            Acc += Input[((Oy + Ky) * W + Ox + Kx) * C + Oc / M] *
                   Filter[(Ky * K + Kx) * OC + Oc];
        CHECK(Out[(Oy * OW + Ox) * OC + Oc] == Approx(Acc).margin(1e-5));
      }
}

TEST_CASE("host NNAPI device: AVERAGE_POOL_2D excludes the padding") {
  Builder B;
  uint32_t X = B.operand(TENSOR_FLOAT32, {1, 3, 3, 1});
  uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 3, 3, 1});
  B.op(AVERAGE_POOL_2D,
       {X, B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(1), B.i32(3),
        B.i32(3), B.i32(FUSED_NONE)},
       {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<float> Input = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> Out(9);
  run(B.M, Input, Out);
  // Corners average 4 values, edges 6, the centre 9.
  const std::vector<float> Expected = {3.0f, 3.5f, 4.0f, 4.5f, 5.0f,
                                       5.5f, 6.0f, 6.5f, 7.0f};
  for (size_t I = 0; I < 9; ++I)
    CHECK(Out[I] == Approx(Expected[I]));
}

TEST_CASE("host NNAPI device: quantized AVERAGE_POOL_2D rounds half away") {
  Builder B;
  uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 1, 2, 1}, 0.5f, 0);
  uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 1, 1, 1}, 0.5f, 0);
  B.op(AVERAGE_POOL_2D,
       {X, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1), B.i32(2),
        B.i32(1), B.i32(FUSED_NONE)},
       {Y});
  REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
  std::vector<int8_t> Input = {-3, -4}, Out(1);
  run(B.M, Input, Out);
  CHECK(Out[0] == -4); // -3.5 -> -4
}

TEST_CASE("host NNAPI device: a driver's checks") {
  SECTION("quantized CONV_2D bias scale not input * filter scale") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 3, 3, 1}, 0.5f, 0);
    uint32_t F = B.constant(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1}, std::vector<uint8_t>{3},
                            0.25f, 0);
    uint32_t Bi = B.constant(TENSOR_INT32, {1}, std::vector<int32_t>{0}, 0.2f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 3, 3, 1}, 1.0f, 0);
    B.op(CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
          B.i32(FUSED_NONE)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("HARD_SWISH on a level 29 device") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "29");
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 4});
    B.op(HARD_SWISH, {X}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("HARD_SWISH on a level 30 device") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 4});
    B.op(HARD_SWISH, {X}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {-4, -1, 1, 4}, Out(4);
    run(B.M, In, Out);
    CHECK(Out[0] == 0.0f);
    CHECK(Out[1] == Approx(-1.0f / 3));
    CHECK(Out[2] == Approx(4.0f / 6));
    CHECK(Out[3] == Approx(4.0f));
  }
  SECTION("per-channel CONV_2D filter quantized along dimension 3") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 3, 3, 2}, 0.5f, 0);
    uint32_t F = B.constant(TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1, 1, 2},
                            std::vector<int8_t>{1, 2, 3, 4});
    const float Scales[2] = {0.1f, 0.2f};
    ANeuralNetworksSymmPerChannelQuantParams PC{3, 2, Scales};
    B.check(api().ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        B.M, int32_t(F), &PC));
    uint32_t Bi = B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{0, 0});
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 3, 3, 2}, 1.0f, 0);
    B.op(CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
          B.i32(FUSED_NONE)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("output dimensions the operation does not compute") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 5});
    B.op(RELU, {X}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("NCHW layout") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 2, 1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 1, 1, 1});
    B.op(MAX_POOL_2D,
         {X, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1), B.i32(2),
          B.i32(2), B.i32(FUSED_NONE), B.boolean(true)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("zero point out of range") {
    Builder B;
    B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1}, 1.0f, 128);
    CHECK(B.Error == BAD_DATA);
  }
  SECTION("unknown operation code") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {4});
    B.op(1000, {X}, {Y});
    CHECK(B.Error == BAD_DATA);
  }
  SECTION("wrong input count") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {4});
    B.op(ADD, {X, X}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("CONV_2D input of rank 3") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {3, 3, 1});
    uint32_t F = B.constant(TENSOR_FLOAT32, {1, 1, 1, 1}, std::vector<float>{1});
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{0});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {3, 3, 1});
    B.op(CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
          B.i32(FUSED_NONE)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("RESHAPE output zero point differs from the input's") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {2, 2}, 0.5f, 3);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {4}, 0.5f, 4);
    B.op(RESHAPE, {X, B.constant(TENSOR_INT32, {1}, std::vector<int32_t>{-1})}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("quantized FULLY_CONNECTED with a float bias") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, 0.5f, 0);
    uint32_t F = B.constant(TENSOR_QUANT8_ASYMM, {1, 2}, std::vector<uint8_t>{1, 2},
                            0.5f, 0);
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{0});
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 1}, 1.0f, 0);
    B.op(FULLY_CONNECTED, {X, F, Bi, B.i32(FUSED_NONE)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("input 1 of an operation written by a later operation") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {4});
    uint32_t T = B.operand(TENSOR_FLOAT32, {4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {4});
    B.op(ADD, {X, T, B.i32(0)}, {Y});
    B.op(RELU, {X}, {T});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
}

TEST_CASE("host NNAPI device: compilation cache and the log") {
  const std::string Dir = tempDir();
  const std::string Log = Dir + "/log";
  ScopedEnv LogEnv("KILN_NNAPI_HOST_LOG", Log);
  uint8_t Token[BYTE_SIZE_OF_CACHE_TOKEN];
  for (size_t I = 0; I < sizeof Token; ++I)
    Token[I] = uint8_t(I * 7);
  ANeuralNetworksDevice *Accel = nullptr;
  REQUIRE(api().ANeuralNetworks_getDevice(0, &Accel) == NO_ERROR);
  for (int Round = 0; Round < 2; ++Round) {
    Builder B;
    buildAddOne(B);
    ANeuralNetworksCompilation *C = nullptr;
    const ANeuralNetworksDevice *Devs[] = {Accel};
    REQUIRE(api().ANeuralNetworksCompilation_createForDevices(B.M, Devs, 1, &C) ==
            NO_ERROR);
    REQUIRE(api().ANeuralNetworksCompilation_setPreference(C, PREFER_SUSTAINED_SPEED) ==
            NO_ERROR);
    REQUIRE(api().ANeuralNetworksCompilation_setCaching(C, Dir.c_str(), Token) ==
            NO_ERROR);
    REQUIRE(api().ANeuralNetworksCompilation_finish(C) == NO_ERROR);
    api().ANeuralNetworksCompilation_free(C);
  }
  CHECK(readFile(Log) ==
        "compile devices=kiln-host-accelerator preference=2 cache=miss\n"
        "compile devices=kiln-host-accelerator preference=2 cache=hit\n");
  std::string TokenHex;
  for (uint8_t T : Token) {
    char S[3];
    std::snprintf(S, sizeof S, "%02x", T);
    TokenHex += S;
  }
  CHECK(access((Dir + "/" + TokenHex + ".kiln-nnapi-host").c_str(), F_OK) == 0);
}

TEST_CASE("host NNAPI device: executions computed twice") {
  const std::string Dir = tempDir();
  const std::string Log = Dir + "/log";
  ScopedEnv LogEnv("KILN_NNAPI_HOST_LOG", Log);
  Builder B;
  buildAddOne(B);
  ANeuralNetworksCompilation *C = compile(B.M);
  std::vector<float> In = {1, 2, 3, 4}, Out(4);
  for (bool Reusable : {false, true}) {
    ANeuralNetworksExecution *E = nullptr;
    REQUIRE(api().ANeuralNetworksExecution_create(C, &E) == NO_ERROR);
    if (Reusable)
      REQUIRE(api().ANeuralNetworksExecution_setReusable(E, true) == NO_ERROR);
    REQUIRE(api().ANeuralNetworksExecution_setInput(E, 0, nullptr, In.data(), 16) ==
            NO_ERROR);
    CHECK(api().ANeuralNetworksExecution_setOutput(E, 0, nullptr, Out.data(), 12) ==
          BAD_DATA);
    REQUIRE(api().ANeuralNetworksExecution_setOutput(E, 0, nullptr, Out.data(), 16) ==
            NO_ERROR);
    REQUIRE(api().ANeuralNetworksExecution_compute(E) == NO_ERROR);
    CHECK(Out == std::vector<float>{2, 3, 4, 5});
    CHECK(api().ANeuralNetworksExecution_compute(E) ==
          (Reusable ? NO_ERROR : BAD_STATE));
    api().ANeuralNetworksExecution_free(E);
  }
  api().ANeuralNetworksCompilation_free(C);
  CHECK(readFile(Log) == "compile devices=kiln-host-accelerator,nnapi-reference "
                         "preference=1 cache=none\n"
                         "execution compute\n"
                         "execution compute\n"
                         "execution compute\n"
                         "execution reused\n");
}

TEST_CASE("host NNAPI device: weights in a memory from a file descriptor") {
  char Path[] = "/tmp/kiln-nnapi-host-weights-XXXXXX";
  int Fd = mkstemp(Path);
  REQUIRE(Fd >= 0);
  // Weights at offset 5000 (not page aligned).
  std::vector<uint8_t> Bytes(5000, 0);
  std::vector<float> W = {1, 2, 3, 4, 5, 6};
  Bytes.insert(Bytes.end(), reinterpret_cast<uint8_t *>(W.data()),
               reinterpret_cast<uint8_t *>(W.data() + 6));
  REQUIRE(write(Fd, Bytes.data(), Bytes.size()) == ssize_t(Bytes.size()));
  ANeuralNetworksMemory *Mem = nullptr;
  REQUIRE(api().ANeuralNetworksMemory_createFromFd(24, ProtRead, Fd, 5000, &Mem) ==
          NO_ERROR);
  {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 3});
    uint32_t Wt = B.operand(TENSOR_FLOAT32, {2, 3});
    B.check(api().ANeuralNetworksModel_setOperandValueFromMemory(B.M, int32_t(Wt), Mem,
                                                                 0, 24));
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {2}, std::vector<float>{0.5f, -1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 2});
    B.op(FULLY_CONNECTED, {X, Wt, Bi, B.i32(FUSED_NONE)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {1, 1, 2}, Out(2);
    run(B.M, In, Out);
    CHECK(Out[0] == Approx(1 + 2 + 6 + 0.5));
    CHECK(Out[1] == Approx(4 + 5 + 12 - 1));
  }
  api().ANeuralNetworksMemory_free(Mem);
  close(Fd);
  unlink(Path);
}

TEST_CASE("host NNAPI device: movement operations") {
  SECTION("STRIDED_SLICE with a negative stride and a shrunk axis") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 4});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2});
    B.op(STRIDED_SLICE,
         {X, B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{1, -1}),
          B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{2, 0}),
          B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{1, -2}), B.i32(0),
          B.i32(2), B.i32(1)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {0, 1, 2, 3, 4, 5, 6, 7}, Out(2);
    run(B.M, In, Out);
    CHECK(Out == std::vector<float>{7, 5});
  }
  SECTION("TRANSPOSE, PAD and CONCATENATION") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 3});
    uint32_t T = B.operand(TENSOR_FLOAT32, {3, 2});
    B.op(TRANSPOSE, {X, B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{1, 0})}, {T});
    uint32_t P = B.operand(TENSOR_FLOAT32, {3, 3});
    B.op(PAD, {T, B.constant(TENSOR_INT32, {2, 2}, std::vector<int32_t>{0, 0, 1, 0})},
         {P});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {3, 5});
    B.op(CONCATENATION, {P, T, B.i32(-1)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {1, 2, 3, 4, 5, 6}, Out(15);
    run(B.M, In, Out);
    CHECK(Out == std::vector<float>{0, 1, 4, 1, 4, 0, 2, 5, 2, 5, 0, 3, 6, 3, 6});
  }
}

namespace {

/// Real value of a uint8 / int8 quantized element.
template <typename Q> double real(Q V, float Scale, int32_t Zp) {
  return (double(V) - Zp) * double(Scale);
}

/// The nearest quantized value of X (round half away), clamped to Q's range.
template <typename Q> double quant(double X, float Scale, int32_t Zp) {
  return std::clamp(std::round(X / double(Scale)) + Zp,
                    double(std::numeric_limits<Q>::min()),
                    double(std::numeric_limits<Q>::max()));
}

} // namespace


TEST_CASE("host NNAPI device: quantized MUL and SUB") {
  SECTION("MUL uint8") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {4}, 0.5f, 128);
    std::vector<uint8_t> BV = {100, 0, 255, 140};
    uint32_t Cst = B.constant(TENSOR_QUANT8_ASYMM, {4}, BV, 0.25f, 100);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {4}, 1.0f, 3);
    B.op(MUL, {X, Cst, B.i32(FUSED_NONE)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {130, 0, 255, 77}, Out(4);
    run(B.M, In, Out);
    for (size_t I = 0; I < 4; ++I)
      CHECK(std::fabs(Out[I] - quant<uint8_t>(real(In[I], 0.5f, 128) *
                                                  real(BV[I], 0.25f, 100),
                                              1.0f, 3)) <= 1.0);
  }
  SECTION("SUB int8 with RELU") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.02f, -10);
    std::vector<int8_t> BV = {0, 50, -50, 127, -128};
    uint32_t Cst = B.constant(TENSOR_QUANT8_ASYMM_SIGNED, {5}, BV, 0.03f, 5);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {5}, 0.04f, -20);
    B.op(SUB, {X, Cst, B.i32(FUSED_RELU)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<int8_t> In = {-128, 0, 100, 127, 3}, Out(5);
    run(B.M, In, Out);
    for (size_t I = 0; I < 5; ++I) {
      double R = std::max(0.0, real(In[I], 0.02f, -10) - real(BV[I], 0.03f, 5));
      CHECK(std::fabs(Out[I] - quant<int8_t>(R, 0.04f, -20)) <= 1.0);
    }
  }
}

TEST_CASE("host NNAPI device: TRANSPOSE_CONV_2D, float and per-channel quantized") {
  const uint32_t H = 2, W = 3, IC = 2, OC = 2, K = 3, S = 2;
  const uint32_t OH = S * (H - 1) + K - 1, OW = S * (W - 1) + K - 1; // pads 1, 0
  std::vector<float> Input = values(H * W * IC, -1, 1, 5);
  std::vector<float> Filter = values(OC * K * K * IC, -1, 1, 6);
  std::vector<float> Bias = {0.25f, -0.5f};
  // Reference: scatter each input element through the filter.
  std::vector<double> Ref(OH * OW * OC, 0);
  for (uint32_t Oy = 0; Oy < OH; ++Oy)
    for (uint32_t Ox = 0; Ox < OW; ++Ox)
      for (uint32_t Oc = 0; Oc < OC; ++Oc)
        Ref[(Oy * OW + Ox) * OC + Oc] = Bias[Oc];
  for (uint32_t Iy = 0; Iy < H; ++Iy)
    for (uint32_t Ix = 0; Ix < W; ++Ix)
      for (uint32_t Ky = 0; Ky < K; ++Ky)
        for (uint32_t Kx = 0; Kx < K; ++Kx) {
          int Oy = int(Iy * S + Ky) - 1, Ox = int(Ix * S + Kx) - 0;
          if (Oy < 0 || Oy >= int(OH) || Ox < 0 || Ox >= int(OW))
            continue;
          for (uint32_t Oc = 0; Oc < OC; ++Oc)
            for (uint32_t Ic = 0; Ic < IC; ++Ic)
              Ref[(size_t(Oy) * OW + size_t(Ox)) * OC + Oc] +=
                  double(Input[(Iy * W + Ix) * IC + Ic]) *
                  Filter[((Oc * K + Ky) * K + Kx) * IC + Ic];
        }
  SECTION("float") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, H, W, IC});
    uint32_t F = B.constant(TENSOR_FLOAT32, {OC, K, K, IC}, Filter);
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {OC}, Bias);
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, OH, OW, OC});
    B.op(TRANSPOSE_CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(1), B.i32(1), B.i32(0), B.i32(S), B.i32(S),
          B.i32(FUSED_NONE), B.boolean(false)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> Out(OH * OW * OC);
    run(B.M, Input, Out);
    for (size_t I = 0; I < Out.size(); ++I)
      CHECK(Out[I] == Approx(Ref[I]).margin(1e-5));
  }
  SECTION("int8, per-channel filter") {
    const float InScale = 1.0f / 64, OutScale = 1.0f / 32;
    const std::vector<float> WScales = {1.0f / 100, 1.0f / 50};
    std::vector<int8_t> QIn(Input.size()), QF(Filter.size());
    for (size_t I = 0; I < Input.size(); ++I) {
      QIn[I] = int8_t(quant<int8_t>(Input[I], InScale, 0));
      Input[I] = float(real(QIn[I], InScale, 0));
    }
    for (size_t I = 0; I < Filter.size(); ++I) {
      const float WS = WScales[I / (K * K * IC)];
      QF[I] = int8_t(quant<int8_t>(Filter[I], WS, 0));
    }
    std::vector<int32_t> QB = {int32_t(std::lround(Bias[0] / (InScale * WScales[0]))),
                               int32_t(std::lround(Bias[1] / (InScale * WScales[1])))};
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, H, W, IC}, InScale, 0);
    uint32_t F = B.constant(TENSOR_QUANT8_SYMM_PER_CHANNEL, {OC, K, K, IC}, QF);
    ANeuralNetworksSymmPerChannelQuantParams PC{0, OC, WScales.data()};
    B.check(api().ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        B.M, int32_t(F), &PC));
    uint32_t Bi = B.constant(TENSOR_INT32, {OC}, QB);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, OH, OW, OC}, OutScale, 0);
    B.op(TRANSPOSE_CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(1), B.i32(1), B.i32(0), B.i32(S), B.i32(S),
          B.i32(FUSED_NONE), B.boolean(false)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<int8_t> Out(OH * OW * OC);
    run(B.M, QIn, Out);
    // Against the real values the quantized operands hold.
    for (uint32_t Oy = 0; Oy < OH; ++Oy)
      for (uint32_t Ox = 0; Ox < OW; ++Ox)
        for (uint32_t Oc = 0; Oc < OC; ++Oc) {
          double Acc = QB[Oc] * double(InScale) * WScales[Oc];
          for (uint32_t Ky = 0; Ky < K; ++Ky)
            for (uint32_t Kx = 0; Kx < K; ++Kx) {
              int Ty = int(Oy) + 1 - int(Ky), Tx = int(Ox) - int(Kx);
              if (Ty < 0 || Tx < 0 || Ty % int(S) || Tx % int(S))
                continue;
              uint32_t Iy = uint32_t(Ty) / S, Ix = uint32_t(Tx) / S;
              if (Iy >= H || Ix >= W)
                continue;
              for (uint32_t Ic = 0; Ic < IC; ++Ic)
                Acc += double(Input[(Iy * W + Ix) * IC + Ic]) *
                       QF[((Oc * K + Ky) * K + Kx) * IC + Ic] * WScales[Oc];
            }
          CHECK(std::fabs(Out[(Oy * OW + Ox) * OC + Oc] -
                          quant<int8_t>(Acc, OutScale, 0)) <= 1.0);
        }
  }
}

TEST_CASE("host NNAPI device: GROUPED_CONV_2D and dilated CONV_2D") {
  SECTION("two groups") {
    const uint32_t H = 3, W = 3, IC = 4, OC = 6, G = 2;
    std::vector<float> Input = values(H * W * IC, -1, 1, 7);
    std::vector<float> Filter = values(OC * IC / G, -1, 1, 8);
    std::vector<float> Bias(OC, 0.0f);
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, H, W, IC});
    uint32_t F = B.constant(TENSOR_FLOAT32, {OC, 1, 1, IC / G}, Filter);
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {OC}, Bias);
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, H, W, OC});
    B.op(GROUPED_CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
          B.i32(int32_t(G)), B.i32(FUSED_NONE), B.boolean(false)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> Out(H * W * OC);
    run(B.M, Input, Out);
    for (uint32_t P = 0; P < H * W; ++P)
      for (uint32_t Oc = 0; Oc < OC; ++Oc) {
        const uint32_t Gi = Oc / (OC / G);
        float Acc = 0;
        for (uint32_t I = 0; I < IC / G; ++I)
          Acc += Input[P * IC + Gi * (IC / G) + I] * Filter[Oc * (IC / G) + I];
        CHECK(Out[P * OC + Oc] == Approx(Acc).margin(1e-5));
      }
  }
  SECTION("dilation 2") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 5, 5, 1});
    uint32_t F = B.constant(TENSOR_FLOAT32, {1, 2, 2, 1}, std::vector<float>{1, 10, 100, 1000});
    uint32_t Bi = B.constant(TENSOR_FLOAT32, {1}, std::vector<float>{0});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 3, 3, 1});
    B.op(CONV_2D,
         {X, F, Bi, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1),
          B.i32(FUSED_NONE), B.boolean(false), B.i32(2), B.i32(2)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In(25), Out(9);
    for (size_t I = 0; I < 25; ++I)
      In[I] = float(I);
    run(B.M, In, Out);
    // Output (0, 0) reads (0,0), (0,2), (2,0), (2,2).
    CHECK(Out[0] == Approx(0 + 10 * 2 + 100 * 10 + 1000 * 12));
  }
}

TEST_CASE("host NNAPI device: quantized FULLY_CONNECTED, CONCATENATION, MAX_POOL_2D") {
  SECTION("FULLY_CONNECTED uint8") {
    const float IS = 0.1f, WS = 0.05f, OS = 0.5f;
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {2, 1, 3}, IS, 120);
    std::vector<uint8_t> Wt = {0, 128, 255, 10, 20, 30};
    uint32_t F = B.constant(TENSOR_QUANT8_ASYMM, {2, 3}, Wt, WS, 128);
    std::vector<int32_t> Bias = {100, -100};
    uint32_t Bi = B.constant(TENSOR_INT32, {2}, Bias, IS * WS, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {2, 2}, OS, 50);
    B.op(FULLY_CONNECTED, {X, F, Bi, B.i32(FUSED_NONE)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {0, 120, 255, 200, 100, 7}, Out(4);
    run(B.M, In, Out);
    for (size_t Bt = 0; Bt < 2; ++Bt)
      for (size_t O = 0; O < 2; ++O) {
        double Acc = Bias[O] * double(IS) * WS;
        for (size_t K = 0; K < 3; ++K)
          Acc += real(In[Bt * 3 + K], IS, 120) * real(Wt[O * 3 + K], WS, 128);
        CHECK(std::fabs(Out[Bt * 2 + O] - quant<uint8_t>(Acc, OS, 50)) <= 1.0);
      }
  }
  SECTION("CONCATENATION of different scales") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, 0.5f, 10);
    uint32_t Cst = B.constant(TENSOR_QUANT8_ASYMM, {1, 2}, std::vector<uint8_t>{0, 200},
                              0.1f, 100);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 4}, 0.25f, 20);
    B.op(CONCATENATION, {X, Cst, B.i32(1)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<uint8_t> In = {11, 0}, Out(4);
    run(B.M, In, Out);
    // 0.5 -> 22; -5 -> 0; -10 -> 0 (clamped); 10 -> 60.
    CHECK(Out == std::vector<uint8_t>{22, 0, 0, 60});
  }
  SECTION("CONCATENATION of different scales on a level 28 device") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "28");
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, 0.5f, 10);
    uint32_t X2 = B.operand(TENSOR_QUANT8_ASYMM, {1, 2}, 0.1f, 100);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 4}, 0.5f, 10);
    B.op(CONCATENATION, {X, X2, B.i32(1)}, {Y});
    CHECK(B.finish({X, X2}, {Y}) == BAD_DATA);
  }
  SECTION("MAX_POOL_2D int8 with RELU6") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 2, 2, 2}, 0.1f, -100);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 1, 1, 2}, 0.1f, -100);
    B.op(MAX_POOL_2D,
         {X, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(2), B.i32(2), B.i32(2),
          B.i32(2), B.i32(FUSED_RELU6)},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<int8_t> In = {-128, 100, -120, -90, -110, 0, -128, 20}, Out(2);
    run(B.M, In, Out);
    CHECK(Out == std::vector<int8_t>{-100, -40}); // max(-110) -> relu 0; 6.0 -> -40
  }
  SECTION("MAX_POOL_2D output scale differs from the input's") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.1f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 1, 1, 1}, 0.2f, 0);
    B.op(MAX_POOL_2D,
         {X, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(2), B.i32(2), B.i32(2),
          B.i32(2), B.i32(FUSED_NONE)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
}

TEST_CASE("host NNAPI device: SOFTMAX, MEAN, GATHER, QUANTIZE, DEQUANTIZE") {
  SECTION("SOFTMAX and LOG_SOFTMAX along axis 0") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {3, 1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {3, 1});
    uint32_t Z = B.operand(TENSOR_FLOAT32, {3, 1});
    B.op(SOFTMAX, {X, B.f32(2.0f), B.i32(0)}, {Y});
    B.op(LOG_SOFTMAX, {Y, B.f32(1.0f), B.i32(-2)}, {Z});
    REQUIRE(B.finish({X}, {Z}) == NO_ERROR);
    std::vector<float> In = {0.0f, 0.5f, 1.0f}, Out(3);
    run(B.M, In, Out);
    const double E0 = 1, E1 = std::exp(1.0), E2 = std::exp(2.0), S = E0 + E1 + E2;
    const double P[3] = {E0 / S, E1 / S, E2 / S};
    const double LS = std::log(std::exp(P[0]) + std::exp(P[1]) + std::exp(P[2]));
    for (size_t I = 0; I < 3; ++I)
      CHECK(Out[I] == Approx(P[I] - LS).margin(1e-6));
  }
  SECTION("MEAN over H and W, REDUCE_MAX without keepDims") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 2, 2});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 1, 1, 2});
    uint32_t Z = B.operand(TENSOR_FLOAT32, {1});
    B.op(MEAN, {X, B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{1, -2}), B.i32(1)},
         {Y});
    B.op(REDUCE_MAX, {Y, B.constant(TENSOR_INT32, {4}, std::vector<int32_t>{0, 1, 2, 3}),
                      B.boolean(false)},
         {Z});
    REQUIRE(B.finish({X}, {Z}) == NO_ERROR);
    ANeuralNetworksCompilation *C = compile(B.M);
    ANeuralNetworksExecution *E = nullptr;
    REQUIRE(api().ANeuralNetworksExecution_create(C, &E) == NO_ERROR);
    std::vector<float> In = {1, 10, 2, 20, 3, 30, 4, 40}, Out(1);
    REQUIRE(api().ANeuralNetworksExecution_setInput(E, 0, nullptr, In.data(), 32) == NO_ERROR);
    REQUIRE(api().ANeuralNetworksExecution_setOutput(E, 0, nullptr, Out.data(), 4) ==
            NO_ERROR);
    REQUIRE(api().ANeuralNetworksExecution_compute(E) == NO_ERROR);
    CHECK(Out[0] == Approx(25.0f));
    api().ANeuralNetworksExecution_free(E);
    api().ANeuralNetworksCompilation_free(C);
  }
  SECTION("GATHER along axis 1") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 3});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2, 2});
    B.op(GATHER, {X, B.i32(1), B.constant(TENSOR_INT32, {2}, std::vector<int32_t>{2, 0})},
         {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {1, 2, 3, 4, 5, 6}, Out(4);
    run(B.M, In, Out);
    CHECK(Out == std::vector<float>{3, 1, 6, 4});
  }
  SECTION("QUANTIZE rounds half away from zero, DEQUANTIZE") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {5});
    uint32_t Q = B.operand(TENSOR_QUANT8_ASYMM, {5}, 0.5f, 10);
    uint32_t Y = B.operand(TENSOR_FLOAT32, {5});
    B.op(QUANTIZE, {X}, {Q});
    B.op(DEQUANTIZE, {Q}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = {-1.25f, 0.0f, 0.37f, 100.0f, -50.0f}, Out(5);
    run(B.M, In, Out);
    // q = 7, 10, 11, 210, 0 (clamped).
    CHECK(Out == std::vector<float>{-1.5f, 0.0f, 0.5f, 100.0f, -5.0f});
  }
}

TEST_CASE("host NNAPI device: feature levels") {
  SECTION("level 28: no device functions, no layout input") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "28");
    uint32_t N = 0;
    CHECK(api().ANeuralNetworks_getDeviceCount(&N) == BAD_DATA);
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 2, 1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 1, 1, 1});
    B.op(MAX_POOL_2D,
         {X, B.i32(0), B.i32(0), B.i32(0), B.i32(0), B.i32(1), B.i32(1), B.i32(2),
          B.i32(2), B.i32(FUSED_NONE), B.boolean(false)},
         {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("level 29: no TENSOR_QUANT8_ASYMM_SIGNED") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "29");
    Builder B;
    B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1}, 1.0f, 0);
    CHECK(B.Error == BAD_DATA);
    ANeuralNetworksDevice *D = nullptr;
    REQUIRE(api().ANeuralNetworks_getDevice(1, &D) == NO_ERROR);
    int64_t L = 0;
    REQUIRE(api().ANeuralNetworksDevice_getFeatureLevel(D, &L) == NO_ERROR);
    CHECK(L == 29);
  }
}

namespace {

/// y[p][m][n] = sum_k a[p][m][k] b[p or 0][k][n] over [P, M, K] x [PB, K, N]
/// row-major, naively.
std::vector<double> naiveBatchMatmul(const std::vector<double> &A,
                                     const std::vector<double> &B, size_t P,
                                     size_t PB, size_t M, size_t K, size_t N) {
  std::vector<double> Y(P * M * N, 0.0);
  for (size_t Pi = 0; Pi < P; ++Pi)
    for (size_t Mi = 0; Mi < M; ++Mi)
      for (size_t Ni = 0; Ni < N; ++Ni)
        for (size_t Ki = 0; Ki < K; ++Ki)
          Y[(Pi * M + Mi) * N + Ni] += A[(Pi * M + Mi) * K + Ki] *
                                       B[((PB == 1 ? 0 : Pi) * K + Ki) * N + Ni];
  return Y;
}

} // namespace

TEST_CASE("host NNAPI device: BATCH_MATMUL (feature level 6)") {
  SECTION("float, the right operand's batch broadcast") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 2, 3});
    std::vector<float> W = values(6, -1, 1, 7);
    uint32_t Wc = B.constant(TENSOR_FLOAT32, {1, 3, 2}, W);
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2, 2, 2});
    B.op(BATCH_MATMUL, {X, Wc, B.boolean(false), B.boolean(false)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = values(12, -2, 2, 3), Out(8);
    run(B.M, In, Out);
    std::vector<double> Want = naiveBatchMatmul(
        std::vector<double>(In.begin(), In.end()),
        std::vector<double>(W.begin(), W.end()), 2, 1, 2, 3, 2);
    for (size_t I = 0; I < 8; ++I)
      CHECK(Out[I] == Approx(Want[I]).margin(1e-6));
  }
  SECTION("float, both operands transposed (adj_x, adj_y)") {
    // a is stored [P, K, M] and b [P, N, K]: y = a^T b^T per batch.
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 3, 2});
    std::vector<float> W = values(12, -1, 1, 11);
    uint32_t Wc = B.constant(TENSOR_FLOAT32, {2, 2, 3}, W);
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2, 2, 2});
    B.op(BATCH_MATMUL, {X, Wc, B.boolean(true), B.boolean(true)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<float> In = values(12, -2, 2, 5), Out(8);
    run(B.M, In, Out);
    std::vector<double> A(12), Bt(12);
    for (size_t P = 0; P < 2; ++P)
      for (size_t I = 0; I < 3; ++I)
        for (size_t J = 0; J < 2; ++J) {
          A[(P * 2 + J) * 3 + I] = In[(P * 3 + I) * 2 + J]; // [P, M=2, K=3]
          Bt[(P * 3 + I) * 2 + J] = W[(P * 2 + J) * 3 + I]; // [P, K=3, N=2]
        }
    std::vector<double> Want = naiveBatchMatmul(A, Bt, 2, 2, 2, 3, 2);
    for (size_t I = 0; I < 8; ++I)
      CHECK(Out[I] == Approx(Want[I]).margin(1e-6));
  }
  SECTION("int8 signed within 1 quantum of the real product") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 2, 3}, 0.05f, 3);
    std::vector<int8_t> W = {-128, 5, 90, 127, -40, 0};
    uint32_t Wc = B.constant(TENSOR_QUANT8_ASYMM_SIGNED, {1, 3, 2}, W, 0.1f, -2);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM_SIGNED, {1, 2, 2}, 0.25f, 1);
    B.op(BATCH_MATMUL, {X, Wc, B.boolean(false), B.boolean(false)}, {Y});
    REQUIRE(B.finish({X}, {Y}) == NO_ERROR);
    std::vector<int8_t> In = {100, -100, 7, 0, 127, -128}, Out(4);
    run(B.M, In, Out);
    std::vector<double> A, Bw;
    for (int8_t V : In)
      A.push_back(real(V, 0.05f, 3));
    for (int8_t V : W)
      Bw.push_back(real(V, 0.1f, -2));
    std::vector<double> Want = naiveBatchMatmul(A, Bw, 1, 1, 2, 3, 2);
    for (size_t I = 0; I < 4; ++I)
      CHECK(std::fabs(Out[I] - quant<int8_t>(Want[I], 0.25f, 1)) <= 1.0);
  }
  SECTION("checks: a left batch of 1 against 2, and below level 6") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 3});
    uint32_t Wc = B.constant(TENSOR_FLOAT32, {2, 3, 2}, values(12, -1, 1, 2));
    uint32_t Y = B.operand(TENSOR_FLOAT32, {2, 2, 2});
    B.op(BATCH_MATMUL, {X, Wc, B.boolean(false), B.boolean(false)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "31");
    CHECK(api().ANeuralNetworks_getRuntimeFeatureLevel() == 31);
    Builder C;
    uint32_t X2 = C.operand(TENSOR_FLOAT32, {2, 3});
    uint32_t W2 = C.constant(TENSOR_FLOAT32, {3, 2}, values(6, -1, 1, 2));
    uint32_t Y2 = C.operand(TENSOR_FLOAT32, {2, 2});
    C.op(BATCH_MATMUL, {X2, W2, C.boolean(false), C.boolean(false)}, {Y2});
    CHECK(C.Error == BAD_DATA);
  }
  CHECK(api().ANeuralNetworks_getRuntimeFeatureLevel() == FeatureLevel6);
}

namespace {

/// One RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR from In to Out dims
/// (NHWC), the output width and height from Out, then Extra (the layout,
/// alignCorners, halfPixelCenters inputs: as many as given); the result of
/// finish.
int buildResize(Builder &B, int32_t Op, int32_t Type, std::vector<uint32_t> In,
                std::vector<uint32_t> Out, std::vector<bool> Extra,
                float Scale = 0, int32_t Zp = 0) {
  uint32_t X = B.operand(Type, In, Scale, Zp);
  uint32_t Y = B.operand(Type, Out, Scale, Zp);
  std::vector<uint32_t> Ins = {X, B.i32(int32_t(Out[2])), B.i32(int32_t(Out[1]))};
  for (bool E : Extra)
    Ins.push_back(B.boolean(E));
  B.op(Op, Ins, {Y});
  return B.finish({X}, {Y});
}

void checkApprox(const std::vector<float> &Out, const std::vector<float> &Expected) {
  REQUIRE(Out.size() == Expected.size());
  for (size_t I = 0; I < Out.size(); ++I) {
    INFO("element " << I);
    CHECK(Out[I] == Approx(Expected[I]).margin(1e-6));
  }
}

} // namespace

TEST_CASE("host NNAPI device: RESIZE_BILINEAR 2x2 to 4x4") {
  const std::vector<float> In = {1, 2, 3, 4};
  std::vector<float> Out(16);
  SECTION("asymmetric (the level 27 form)") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {}) == NO_ERROR);
    run(B.M, In, Out);
    // Sources 0, 0.5, 1, 1.5 on both axes; 1.5 reads index 1 twice.
    checkApprox(Out, {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
  }
  SECTION("align corners (5 inputs)") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false, true}) == NO_ERROR);
    run(B.M, In, Out);
    // Scale 1/3: value = 1 + x/3 + 2y/3.
    std::vector<float> Expected;
    for (int Y = 0; Y < 4; ++Y)
      for (int X = 0; X < 4; ++X)
        Expected.push_back(1.0f + float(X) / 3 + 2.0f * float(Y) / 3);
    checkApprox(Out, Expected);
  }
  SECTION("half pixel centers (6 inputs)") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false, false, true}) == NO_ERROR);
    run(B.M, In, Out);
    // Sources -0.25, 0.25, 0.75, 1.25: fractions 0, .25, .75, 1 of the step.
    checkApprox(Out, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f,
                      3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
  }
  SECTION("uint8, two channels, + 0.5 then truncation") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_BILINEAR, TENSOR_QUANT8_ASYMM, {1, 2, 2, 2},
                        {1, 4, 4, 2}, {false}, 0.5f, 3) == NO_ERROR);
    // Channel 0: 10 23 / 30 41; channel 1: 200 255 / 0 7.
    const std::vector<uint8_t> Q = {10, 200, 23, 255, 30, 0, 41, 7};
    std::vector<uint8_t> QOut(32);
    run(B.M, Q, QOut);
    const std::vector<uint8_t> C0 = {10, 17, 23, 23, 20, 26, 32, 32,
                                     30, 36, 41, 41, 30, 36, 41, 41};
    // Channel 1 rows: 200, 227.5 -> 228, 255, 255 | 100, 115.5 -> 116 (the
    // mean of 200 255 0 7), 131, 131 | 0, 3.5 -> 4, 7, 7 | the same.
    const std::vector<uint8_t> C1 = {200, 228, 255, 255, 100, 116, 131, 131,
                                     0,   4,   7,   7,   0,   4,   7,   7};
    for (size_t I = 0; I < 16; ++I) {
      INFO("pixel " << I);
      CHECK(int(QOut[2 * I]) == int(C0[I]));
      CHECK(int(QOut[2 * I + 1]) == int(C1[I]));
    }
  }
  SECTION("int8 adds 0.5 and truncates toward zero (TFLite 2.9)") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_BILINEAR, TENSOR_QUANT8_ASYMM_SIGNED, {1, 1, 2, 1},
                        {1, 1, 4, 1}, {false}, 0.25f, -1) == NO_ERROR);
    std::vector<int8_t> Q = {-5, 0}, QOut(4);
    run(B.M, Q, QOut);
    // -5 + 0.5 -> -4, -2.5 + 0.5 -> -2, 0 + 0.5 -> 0.
    CHECK(QOut == std::vector<int8_t>{-4, -2, 0, 0});
  }
}

TEST_CASE("host NNAPI device: RESIZE_NEAREST_NEIGHBOR") {
  SECTION("2x3 to 4x6, asymmetric, float") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_FLOAT32, {1, 2, 3, 1},
                        {1, 4, 6, 1}, {false}) == NO_ERROR);
    std::vector<float> In = {1, 2, 3, 4, 5, 6}, Out(24);
    run(B.M, In, Out);
    CHECK(Out == std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3,
                                    4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6});
  }
  SECTION("2x3 to 4x6, half pixel centers, uint8 (raw copy)") {
    Builder B;
    REQUIRE(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_QUANT8_ASYMM, {1, 2, 3, 1},
                        {1, 4, 6, 1}, {false, false, true}, 0.1f, 128) == NO_ERROR);
    // Sources (d + 0.5) * 0.5 floored: 0 0 1 1 (2 2).
    std::vector<uint8_t> In = {0, 100, 255, 7, 128, 9}, Out(24);
    run(B.M, In, Out);
    CHECK(Out == std::vector<uint8_t>{0, 0, 100, 100, 255, 255, 0, 0, 100, 100, 255, 255,
                                      7, 7, 128, 128, 9, 9, 7, 7, 128, 128, 9, 9});
  }
  SECTION("3 to 2 wide: the three coordinate modes differ") {
    // Scale 1.5: asymmetric floor(0), floor(1.5) = 0, 1; half pixel
    // floor(0.75), floor(2.25) = 0, 2; align corners (scale 2) round(0),
    // round(2) = 0, 2.
    const std::vector<std::pair<std::vector<bool>, std::vector<int8_t>>> Cases = {
        {{false}, {-1, 2}},
        {{false, false, true}, {-1, 3}},
        {{false, true}, {-1, 3}},
        {{false, true, false}, {-1, 3}},
    };
    for (const auto &[Extra, Expected] : Cases) {
      Builder B;
      REQUIRE(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_QUANT8_ASYMM_SIGNED,
                          {1, 1, 3, 1}, {1, 1, 2, 1}, Extra, 1.0f, 0) == NO_ERROR);
      std::vector<int8_t> In = {-1, 2, 3}, Out(2);
      run(B.M, In, Out);
      INFO("inputs " << 3 + Extra.size());
      CHECK(Out == Expected);
    }
  }
}

TEST_CASE("host NNAPI device: RESIZE checks") {
  SECTION("level 29 refuses the 5- and 6-input forms, takes the 4-input one") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "29");
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false, true}) == BAD_DATA);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false, false, true}) == BAD_DATA);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false}) == NO_ERROR);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_QUANT8_ASYMM, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false}, 0.5f, 0) == NO_ERROR);
    }
  }
  SECTION("level 28: no layout input, no quantized bilinear, no nearest") {
    ScopedEnv Level("KILN_NNAPI_HOST_FEATURE_LEVEL", "28");
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false}) == BAD_DATA);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_QUANT8_ASYMM, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {}, 0.5f, 0) == BAD_DATA);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {}) == NO_ERROR);
    }
    {
      Builder B;
      CHECK(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_FLOAT32, {1, 2, 2, 1},
                        {1, 4, 4, 1}, {false}) == BAD_DATA);
    }
  }
  SECTION("output dimensions not [N, outputHeight, outputWidth, C]") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 2, 3});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 4, 3, 3}); // height 3, width 4
    B.op(RESIZE_BILINEAR, {X, B.i32(4), B.i32(3)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("alignCorners and halfPixelCenters both true") {
    Builder B;
    CHECK(buildResize(B, RESIZE_NEAREST_NEIGHBOR, TENSOR_FLOAT32, {1, 2, 2, 1},
                      {1, 4, 4, 1}, {false, true, true}) == BAD_DATA);
  }
  SECTION("NCHW layout") {
    Builder B;
    CHECK(buildResize(B, RESIZE_BILINEAR, TENSOR_FLOAT32, {1, 2, 2, 1},
                      {1, 4, 4, 1}, {true}) == BAD_DATA);
  }
  SECTION("FLOAT32 scales instead of the output size") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {1, 2, 2, 1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {1, 4, 4, 1});
    B.op(RESIZE_BILINEAR, {X, B.f32(2.0f), B.f32(2.0f), B.boolean(false)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("quantized output zero point differs from the input's") {
    Builder B;
    uint32_t X = B.operand(TENSOR_QUANT8_ASYMM, {1, 2, 2, 1}, 0.5f, 0);
    uint32_t Y = B.operand(TENSOR_QUANT8_ASYMM, {1, 4, 4, 1}, 0.5f, 1);
    B.op(RESIZE_NEAREST_NEIGHBOR, {X, B.i32(4), B.i32(4), B.boolean(false)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
  SECTION("input of rank 3") {
    Builder B;
    uint32_t X = B.operand(TENSOR_FLOAT32, {2, 2, 1});
    uint32_t Y = B.operand(TENSOR_FLOAT32, {4, 4, 1});
    B.op(RESIZE_BILINEAR, {X, B.i32(4), B.i32(4)}, {Y});
    CHECK(B.finish({X}, {Y}) == BAD_DATA);
  }
}
