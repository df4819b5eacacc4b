// Weight layouts for XNNPACK, checked against hand-written expectations.
#include "backends/kilnops/WeightPacking.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace kiln;

namespace {

/// Runs a packer into Count floats prefilled with a value no test weight
/// has, so that an element the packer skips shows.
template <typename Pack> std::vector<float> packed(size_t Count, Pack P) {
  std::vector<float> Out(Count, -7777.0f);
  P(Out.data());
  return Out;
}

/// Conv weights with O=2, I=3, kh=1, kw=2: W[o][i][0][x] = 100*o + 10*i + x.
std::vector<float> convWeights() {
  std::vector<float> W;
  for (int O = 0; O < 2; ++O)
    for (int I = 0; I < 3; ++I)
      for (int X = 0; X < 2; ++X)
        W.push_back(float(100 * O + 10 * I + X));
  return W;
}

} // namespace

TEST_CASE("conv weights go from OIHW to OHWI", "[packing]") {
  std::vector<float> W = convWeights();
  REQUIRE(packed(12, [&](float *Out) { packConvOHWI(W.data(), 2, 3, 1, 2, Out); }) ==
          std::vector<float>{0, 10, 20, 1, 11, 21, 100, 110, 120, 101, 111, 121});
}

TEST_CASE("depthwise weights go from [C,1,kh,kw] to [1,kh,kw,C]",
          "[packing]") {
  // C=3, 2x1 kernel: W[c][0][y][0] = 10*c + y.
  std::vector<float> W = {0, 1, 10, 11, 20, 21};
  REQUIRE(packed(6, [&](float *Out) { packDepthwiseHWO(W.data(), 3, 2, 1, Out); }) ==
          std::vector<float>{0, 10, 20, 1, 11, 21});
}

TEST_CASE("transposed-convolution weights go to OHWI per group",
          "[packing]") {
  // groups=2, I=1 input and O=2 output channels per group, 1x1 kernel:
  // W[g*I + i][o] = 10*g + o.
  std::vector<float> W = {0, 1, 10, 11};
  REQUIRE(packed(4, [&](float *Out) { packDeconvOHWI(W.data(), 2, 1, 2, 1, 1, Out); }) ==
          std::vector<float>{0, 1, 10, 11});
  // groups=1, I=2, O=2: W[i][o] = 10*i + o -> Out[o][i].
  std::vector<float> V = {0, 1, 10, 11};
  REQUIRE(packed(4, [&](float *Out) { packDeconvOHWI(V.data(), 1, 2, 2, 1, 1, Out); }) ==
          std::vector<float>{0, 10, 1, 11});
}

TEST_CASE("matrices transpose", "[packing]") {
  std::vector<float> W = {1, 2, 3, 4, 5, 6}; // [2, 3]
  REQUIRE(transposeMatrix(W.data(), 2, 3) ==
          std::vector<float>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("packers read weights at any byte alignment", "[packing]") {
  // An ONNX initializer's raw_data sits wherever protobuf put it in the file:
  // the same weights as the first test, stored 1..3 bytes past alignment.
  std::vector<float> W = convWeights();
  for (size_t Skew = 1; Skew < sizeof(float); ++Skew) {
    std::vector<unsigned char> Bytes(Skew + W.size() * sizeof(float), 0xEE);
    std::memcpy(Bytes.data() + Skew, W.data(), W.size() * sizeof(float));
    FloatSource Source(Bytes.data() + Skew);
    REQUIRE(Source[5] == 21.0f);
    REQUIRE(packed(12, [&](float *Out) { packConvOHWI(Source, 2, 3, 1, 2, Out); }) ==
            std::vector<float>{0, 10, 20, 1, 11, 21, 100, 110, 120, 101, 111, 121});
    REQUIRE(packed(12, [&](float *Out) { packDepthwiseHWO(Source, 6, 2, 1, Out); }) ==
            std::vector<float>{0, 10, 20, 100, 110, 120, 1, 11, 21, 101, 111, 121});
  }
}
