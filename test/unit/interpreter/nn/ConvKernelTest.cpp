// conv and conv_transpose against a direct-convolution oracle written here
// (plain loops over every output and kernel position, in double) on seeded
// random data, over 1-D/2-D/3-D shapes, strides, asymmetric pads,
// dilations, groups (depthwise too), the 1x1 fast path and several thread
// counts; plus the worked examples of the ONNX operator docs.
#include "NNTestHarness.h"

using namespace kiln;
using namespace nntest;

namespace {

struct ConvCase {
  Sizes X, W; // conv: W = [M, C/G, k...]; transpose: W = [C, M/G, k...]
  Sizes Strides, Pads, Dil, OutPad;
  int64_t Group = 1;
  bool Bias = true;
};

Sizes orOnes(const Sizes &V, size_t NS, int64_t Fill) {
  return V.empty() ? Sizes(NS, Fill) : V;
}

/// y[n, m, o] = b[m] + sum_{c, k} x[n, g*Cg + c, o*s - p + k*d] w[m, c, k]
std::vector<double> directConv(const ConvCase &K, const std::vector<double> &X,
                               const std::vector<double> &W,
                               const std::vector<double> &B, Sizes &OutSizes) {
  size_t NS = K.X.size() - 2;
  Sizes S = orOnes(K.Strides, NS, 1), D = orOnes(K.Dil, NS, 1),
        P = orOnes(K.Pads, 2 * NS, 0);
  int64_t N = K.X[0], C = K.X[1], M = K.W[0], Cg = C / K.Group,
          Mg = M / K.Group;
  Sizes In(K.X.begin() + 2, K.X.end()), Kr(K.W.begin() + 2, K.W.end()), Out;
  for (size_t I = 0; I < NS; ++I)
    Out.push_back((In[I] + P[I] + P[NS + I] - D[I] * (Kr[I] - 1) - 1) / S[I] +
                  1);
  OutSizes = {N, M};
  OutSizes.insert(OutSizes.end(), Out.begin(), Out.end());
  std::vector<double> Y(size_t(count(OutSizes)), 0.0);
  for (int64_t Flat = 0; Flat < count(OutSizes); ++Flat) {
    Sizes YC = coordsOf(Flat, OutSizes);
    int64_t Nn = YC[0], Mm = YC[1], G = Mm / Mg;
    double Acc = B.empty() ? 0.0 : B[size_t(Mm)];
    for (int64_t Cc = 0; Cc < Cg; ++Cc)
      for (int64_t KF = 0; KF < count(Kr); ++KF) {
        Sizes KC = coordsOf(KF, Kr);
        int64_t XOff = Nn * C + G * Cg + Cc;
        bool Inside = true;
        for (size_t I = 0; I < NS; ++I) {
          int64_t Pos = YC[2 + I] * S[I] - P[I] + KC[I] * D[I];
          Inside &= Pos >= 0 && Pos < In[I];
          XOff = XOff * In[I] + Pos;
        }
        if (Inside)
          Acc += X[size_t(XOff)] * W[size_t((Mm * Cg + Cc) * count(Kr) + KF)];
      }
    Y[size_t(Flat)] = Acc;
  }
  return Y;
}

/// The scatter form of the transposed conv: every x[n, c, i] adds
/// x * w[c, m, k] to y[n, g*Mg + m, i*s - p + k*d].
std::vector<double> directConvTranspose(const ConvCase &K,
                                        const std::vector<double> &X,
                                        const std::vector<double> &W,
                                        const std::vector<double> &B,
                                        Sizes &OutSizes) {
  size_t NS = K.X.size() - 2;
  Sizes S = orOnes(K.Strides, NS, 1), D = orOnes(K.Dil, NS, 1),
        P = orOnes(K.Pads, 2 * NS, 0), OP = orOnes(K.OutPad, NS, 0);
  int64_t N = K.X[0], C = K.X[1], Mg = K.W[1], Cg = C / K.Group,
          M = Mg * K.Group;
  Sizes In(K.X.begin() + 2, K.X.end()), Kr(K.W.begin() + 2, K.W.end()), Out;
  for (size_t I = 0; I < NS; ++I)
    Out.push_back(S[I] * (In[I] - 1) + OP[I] + (Kr[I] - 1) * D[I] + 1 - P[I] -
                  P[NS + I]);
  OutSizes = {N, M};
  OutSizes.insert(OutSizes.end(), Out.begin(), Out.end());
  std::vector<double> Y(size_t(count(OutSizes)), 0.0);
  int64_t OutP = count(Out);
  for (int64_t I = 0; I < N * M * OutP; ++I)
    Y[size_t(I)] = B.empty() ? 0.0 : B[size_t((I / OutP) % M)];
  for (int64_t XF = 0; XF < count(K.X); ++XF) {
    Sizes XC = coordsOf(XF, K.X);
    int64_t Nn = XC[0], Cc = XC[1], G = Cc / Cg;
    for (int64_t Mm = 0; Mm < Mg; ++Mm)
      for (int64_t KF = 0; KF < count(Kr); ++KF) {
        Sizes KC = coordsOf(KF, Kr);
        int64_t YOff = Nn * M + G * Mg + Mm;
        bool Inside = true;
        for (size_t A = 0; A < NS; ++A) {
          int64_t Pos = XC[2 + A] * S[A] - P[A] + KC[A] * D[A];
          Inside &= Pos >= 0 && Pos < Out[A];
          YOff = YOff * Out[A] + Pos;
        }
        if (Inside)
          Y[size_t(YOff)] +=
              X[size_t(XF)] * W[size_t((Cc * Mg + Mm) * count(Kr) + KF)];
      }
  }
  return Y;
}

void checkCase(const ConvCase &K, bool Transposed, uint32_t Seed) {
  Tensor X = randomF32(K.X, Seed), W = randomF32(K.W, Seed + 1);
  int64_t M = Transposed ? K.W[1] * K.Group : K.W[0];
  Tensor B = randomF32({M}, Seed + 2);
  std::vector<double> BV = K.Bias ? values(B) : std::vector<double>();
  Sizes OutSizes;
  std::vector<double> Want =
      Transposed ? directConvTranspose(K, values(X), values(W), BV, OutSizes)
                 : directConv(K, values(X), values(W), BV, OutSizes);
  AttrMap Attrs = {{"group", K.Group}};
  if (!K.Strides.empty()) Attrs["strides"] = K.Strides;
  if (!K.Pads.empty()) Attrs["pads"] = K.Pads;
  if (!K.Dil.empty()) Attrs["dilations"] = K.Dil;
  if (!K.OutPad.empty()) Attrs["output_padding"] = K.OutPad;
  for (unsigned Threads : {1u, 3u}) {
    INFO("threads " << Threads);
    std::vector<const Tensor *> Ops = {&X, &W};
    if (K.Bias)
      Ops.push_back(&B);
    auto Out = requireValue(runOp(Transposed ? "conv_transpose" : "conv", Ops,
                                  Attrs, 1, Threads));
    checkClose(Out[0], OutSizes, Want, 1e-5, 1e-5);
  }
}

} // namespace

TEST_CASE("conv matches the direct convolution", "[nn][conv]") {
  std::vector<ConvCase> Cases = {
      // 2-D, 3x3, same padding.
      {{2, 3, 7, 7}, {4, 3, 3, 3}, {}, {1, 1, 1, 1}, {}, {}},
      // strides 2, asymmetric pads, dilation 2, non-square kernel.
      {{1, 2, 9, 8}, {3, 2, 3, 2}, {2, 2}, {0, 1, 2, 0}, {2, 2}, {}},
      // groups = 2, no bias.
      {{2, 4, 6, 5}, {6, 2, 3, 3}, {1, 2}, {1, 0, 1, 2}, {}, {}, 2, false},
      // depthwise.
      {{1, 5, 8, 8}, {5, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, {}, 5},
      // depthwise with channel multiplier 2.
      {{2, 3, 6, 6}, {6, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, {}, 3},
      // 1x1 stride 1: the pure GEMM path.
      {{2, 8, 6, 5}, {5, 8, 1, 1}, {}, {}, {}, {}},
      // 1x1 grouped pointwise.
      {{1, 6, 4, 4}, {4, 3, 1, 1}, {}, {}, {}, {}, 2},
      // 1x1 stride 2 (not the GEMM-only path).
      {{1, 3, 7, 7}, {2, 3, 1, 1}, {2, 2}, {}, {}, {}},
      // 1-D.
      {{2, 3, 11}, {4, 3, 4}, {3}, {2, 1}, {2}, {}},
      // 3-D.
      {{1, 2, 4, 5, 3}, {3, 2, 2, 3, 2}, {1, 2, 1}, {1, 0, 1, 0, 1, 1},
       {1, 1, 2}, {}},
      // Enough output positions to be cut into several tiles.
      {{1, 16, 20, 20}, {8, 16, 3, 3}, {}, {1, 1, 1, 1}, {}, {}},
      // Kernel as large as the padded input: a single output.
      {{1, 2, 3, 3}, {2, 2, 5, 5}, {}, {1, 1, 1, 1}, {}, {}},
      // 2-D im2col edges: pads wider than the kernel reaches (whole rows
      // and columns of zeros), stride 3 across, dilation 2 down.
      {{1, 2, 5, 7}, {3, 2, 2, 3}, {1, 3}, {3, 4, 2, 3}, {2, 1}, {}},
      // 1x1 with padding (im2col, not the pure GEMM) and stride (2, 1).
      {{1, 3, 4, 5}, {2, 3, 1, 1}, {2, 1}, {1, 2, 0, 1}, {}, {}},
      // depthwise, non-square, dilated, asymmetric pads, strides (1, 2).
      {{2, 4, 9, 11}, {4, 1, 3, 2}, {1, 2}, {2, 0, 1, 3}, {2, 3}, {}, 4},
      // depthwise, stride 3, pads wider than the kernel, no bias.
      {{1, 3, 7, 6}, {3, 1, 2, 3}, {3, 3}, {3, 1, 0, 4}, {}, {}, 3, false},
      // depthwise 1x1 and depthwise with a 1-wide image.
      {{1, 2, 5, 4}, {2, 1, 1, 1}, {}, {}, {}, {}, 2},
      {{1, 2, 6, 1}, {4, 1, 3, 3}, {}, {1, 1, 1, 1}, {}, {}, 2},
      // depthwise larger than a tile, several thread chunks.
      {{1, 24, 20, 20}, {24, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, {}, 24},
  };
  for (size_t I = 0; I < Cases.size(); ++I) {
    INFO("case " << I);
    checkCase(Cases[I], false, uint32_t(100 + 10 * I));
  }
}

TEST_CASE("conv_transpose matches the scatter definition", "[nn][conv]") {
  std::vector<ConvCase> Cases = {
      {{1, 2, 3, 4}, {2, 3, 3, 3}, {2, 2}, {}, {}, {}},
      // pads, output_padding, dilation.
      {{2, 2, 4, 3}, {2, 3, 3, 2}, {2, 3}, {1, 0, 0, 2}, {1, 2}, {1, 2}},
      // groups = 2, no bias.
      {{1, 4, 3, 3}, {4, 2, 2, 3}, {2, 1}, {}, {}, {}, 2, false},
      // depthwise-style transpose.
      {{1, 3, 4, 4}, {3, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {}, {1, 1}, 3},
      // 1-D.
      {{2, 3, 5}, {3, 2, 4}, {3}, {1, 2}, {}, {2}},
      // 3-D.
      {{1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, {2, 1, 2}, {0, 1, 0, 0, 0, 1}, {},
       {}},
  };
  for (size_t I = 0; I < Cases.size(); ++I) {
    INFO("case " << I);
    checkCase(Cases[I], true, uint32_t(500 + 10 * I));
  }
}

TEST_CASE("conv: the ONNX docs' worked example", "[nn][conv]") {
  // x = 0..24 as 5x5, w = 3x3 of ones, pads 1: each output is the sum of
  // the 3x3 neighbourhood, e.g. y[0,0] = 0+1+5+6 = 12, y[1,1] = 0+1+2+5+6+7+
  // 10+11+12 = 54 (ONNX test_basic_conv_with_padding).
  std::vector<float> XV(25);
  for (int I = 0; I < 25; ++I)
    XV[size_t(I)] = float(I);
  Tensor X = f32({1, 1, 5, 5}, XV), W = f32({1, 1, 3, 3}, std::vector<float>(9, 1));
  auto Out = requireValue(
      runOp("conv", {&X, &W}, {{"pads", Sizes{1, 1, 1, 1}}}));
  checkClose(Out[0], {1, 1, 5, 5},
             {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108,
              117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
  // Without padding only the 3x3 interior remains: 54 63 72 / 99 ...
  Out = requireValue(runOp("conv", {&X, &W}));
  checkClose(Out[0], {1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST_CASE("conv_transpose: the ONNX docs' worked example", "[nn][conv]") {
  // x = 0..8 as 3x3, w = ones [1, 2, 3, 3]: each output sums the inputs whose
  // 3x3 footprint covers it (ONNX test_convtranspose), for both channels.
  std::vector<float> XV(9);
  for (int I = 0; I < 9; ++I)
    XV[size_t(I)] = float(I);
  Tensor X = f32({1, 1, 3, 3}, XV), W = f32({1, 2, 3, 3}, std::vector<float>(18, 1));
  auto Out = requireValue(runOp("conv_transpose", {&X, &W}));
  std::vector<double> Plane = {0, 1,  3,  3,  2,  3, 8,  15, 12, 7,  9,  21, 36,
                               27, 15, 9, 20, 33, 24, 13, 6, 13, 21, 15, 8};
  std::vector<double> Want = Plane;
  Want.insert(Want.end(), Plane.begin(), Plane.end());
  checkClose(Out[0], {1, 2, 5, 5}, Want);
}

TEST_CASE("conv: f64 and f16 inputs", "[nn][conv]") {
  // 1-D, w = [1, 2], x = [1, 2, 3, 4]: y = [1+4, 2+6, 3+8] = [5, 8, 11], +b.
  Tensor X = f64({1, 1, 4}, {1, 2, 3, 4}), W = f64({1, 1, 2}, {1, 2});
  Tensor B = f64({1}, {0.5});
  auto Out = requireValue(runOp("conv", {&X, &W, &B}));
  CHECK(Out[0].type().Elem == ElementType::F64);
  checkClose(Out[0], {1, 1, 3}, {5.5, 8.5, 11.5});

  auto Half = [](Sizes S, std::vector<float> V) {
    std::vector<uint16_t> H;
    for (float F : V)
      H.push_back(floatToHalf(F));
    return Tensor::fromValues<uint16_t>(ElementType::F16, makeShape(S), H);
  };
  Tensor XH = Half({1, 1, 4}, {1, 2, 3, 4}), WH = Half({1, 1, 2}, {1, 2});
  Out = requireValue(runOp("conv", {&XH, &WH}));
  REQUIRE(Out[0].type().Elem == ElementType::F16);
  CHECK(halfToFloat(Out[0].at<uint16_t>(0)) == 5.0f);
  CHECK(halfToFloat(Out[0].at<uint16_t>(2)) == 11.0f);
}

TEST_CASE("conv: run-time shape errors", "[nn][conv]") {
  // The weight expects 4 input channels; the input has 3 (inference catches
  // it before the kernel, with the same message shape).
  Tensor X = randomF32({1, 3, 5, 5}, 1), W = randomF32({2, 4, 3, 3}, 2);
  CHECK(runError("conv", {&X, &W}).find("channels") != std::string::npos);
}

TEST_CASE("depthwise conv: the sum in float, taps in order, bit for bit",
          "[nn][conv]") {
  // The direct depthwise kernel adds, from +0, w * x for every tap inside
  // the image, taps ascending, then the bias: the same sums as the im2col +
  // GEMV path it replaces, so calibration statistics do not move. Written
  // out here in float and compared exactly.
  Sizes XS = {2, 3, 7, 9}, WS = {3, 1, 3, 3};
  int64_t S = 2, P = 1, D = 1, OH = 4, OW = 5;
  Tensor X = randomF32(XS, 5), W = randomF32(WS, 6), B = randomF32({3}, 7);
  auto AsFloat = [](const Tensor &T) {
    std::vector<double> V = values(T);
    return std::vector<float>(V.begin(), V.end());
  };
  std::vector<float> XV = AsFloat(X), WV = AsFloat(W), BV = AsFloat(B);
  auto Out = requireValue(runOp("conv", {&X, &W, &B},
                                {{"group", int64_t(3)},
                                 {"strides", Sizes{S, S}},
                                 {"pads", Sizes{P, P, P, P}}},
                                1, 1));
  REQUIRE(Out[0].numElements() == 2 * 3 * OH * OW);
  const float *Got = reinterpret_cast<const float *>(Out[0].buffer().data());
  for (int64_t N = 0; N < 2; ++N)
    for (int64_t C = 0; C < 3; ++C)
      for (int64_t Oh = 0; Oh < OH; ++Oh)
        for (int64_t Ow = 0; Ow < OW; ++Ow) {
          float Acc = 0.0f;
          for (int64_t Kh = 0; Kh < 3; ++Kh)
            for (int64_t Kw = 0; Kw < 3; ++Kw) {
              int64_t Ih = Oh * S - P + Kh * D, Iw = Ow * S - P + Kw * D;
              if (Ih >= 0 && Ih < 7 && Iw >= 0 && Iw < 9)
                Acc += WV[size_t(C * 9 + Kh * 3 + Kw)] *
                       XV[size_t(((N * 3 + C) * 7 + Ih) * 9 + Iw)];
            }
          Acc += BV[size_t(C)];
          size_t I = size_t(((N * 3 + C) * OH + Oh) * OW + Ow);
          INFO("element " << I);
          CHECK(Got[I] == Acc);
        }
}
