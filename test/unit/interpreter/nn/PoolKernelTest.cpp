// Pooling: the worked examples of the ONNX MaxPool/AveragePool docs (hand
// values there, checked below), indices in both storage orders, u8/i8, and
// N-d random cases against naive window loops written here.
#include "NNTestHarness.h"

#include <cstring>
#include <limits>

using namespace kiln;
using namespace nntest;

namespace {

/// x = 1..25 as [1, 1, 5, 5].
Tensor ramp5() {
  std::vector<float> V(25);
  for (int I = 0; I < 25; ++I)
    V[size_t(I)] = float(I + 1);
  return f32({1, 1, 5, 5}, V);
}
Tensor ramp4() {
  std::vector<float> V(16);
  for (int I = 0; I < 16; ++I)
    V[size_t(I)] = float(I + 1);
  return f32({1, 1, 4, 4}, V);
}

} // namespace

TEST_CASE("max_pool: ONNX examples", "[nn][pool]") {
  Tensor X = ramp5();
  // kernel 5, pads 2: each output is the max of a clipped 5x5 window, i.e.
  // x[min(i+2, 4), min(j+2, 4)].
  auto Y = requireValue(runOp("max_pool", {&X}, {{"kernel", Sizes{5, 5}},
                                                 {"pads", Sizes{2, 2, 2, 2}}}));
  checkClose(Y[0], {1, 1, 5, 5},
             {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25,
              23, 24, 25, 25, 25, 23, 24, 25, 25, 25});
  // kernel 2, stride 2 with indices: maxima 7, 9, 17, 19 at flat row-major
  // positions 6, 8, 16, 18; column-major (h + w*5): 6 -> (1,1) -> 6,
  // 8 -> (1,3) -> 16, 16 -> (3,1) -> 8, 18 -> (3,3) -> 18.
  AttrMap A = {{"kernel", Sizes{2, 2}}, {"strides", Sizes{2, 2}}};
  Y = requireValue(runOp("max_pool", {&X}, A, 2));
  checkClose(Y[0], {1, 1, 2, 2}, {7, 9, 17, 19});
  checkClose(Y[1], {1, 1, 2, 2}, {6, 8, 16, 18});
  A["storage_order"] = int64_t(1);
  Y = requireValue(runOp("max_pool", {&X}, A, 2));
  checkClose(Y[1], {1, 1, 2, 2}, {6, 16, 8, 18});
  // ceil_mode: 4x4, kernel 3, stride 2 -> 2x2; the last windows are clipped
  // at the input: max(x[0:3,0:3]) = 11, max(x[0:3,2:4]) = 12, 15, 16.
  Tensor X4 = ramp4();
  Y = requireValue(runOp("max_pool", {&X4}, {{"kernel", Sizes{3, 3}},
                                             {"strides", Sizes{2, 2}},
                                             {"ceil_mode", int64_t(1)}}));
  checkClose(Y[0], {1, 1, 2, 2}, {11, 12, 15, 16});
  // dilations 2, kernel 2: taps (i, i+2): max = x[i+2, j+2] = 11 12 15 16.
  Y = requireValue(runOp("max_pool", {&X4}, {{"kernel", Sizes{2, 2}},
                                             {"dilations", Sizes{2, 2}}}));
  checkClose(Y[0], {1, 1, 2, 2}, {11, 12, 15, 16});
}

TEST_CASE("max_pool: integer element types", "[nn][pool]") {
  std::vector<uint8_t> U(25);
  for (int I = 0; I < 25; ++I)
    U[size_t(I)] = uint8_t(I + 1);
  Tensor X = Tensor::fromValues<uint8_t>(ElementType::U8, makeShape({1, 1, 5, 5}), U);
  auto Y = requireValue(runOp("max_pool", {&X}, {{"kernel", Sizes{5, 5}},
                                                 {"pads", Sizes{2, 2, 2, 2}}}));
  REQUIRE(Y[0].type().Elem == ElementType::U8);
  checkClose(Y[0], {1, 1, 5, 5},
             {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25,
              23, 24, 25, 25, 25, 23, 24, 25, 25, 25});
  // i8 with negative values: padding never wins (max of [-5, -3] is -3).
  Tensor XI = Tensor::fromValues<int8_t>(ElementType::I8, makeShape({1, 1, 2}),
                                         std::vector<int8_t>{-5, -3});
  Y = requireValue(runOp("max_pool", {&XI}, {{"kernel", Sizes{3}},
                                             {"pads", Sizes{1, 1}}}));
  checkClose(Y[0], {1, 1, 2}, {-3, -3});
}

TEST_CASE("avg_pool: ONNX examples", "[nn][pool]") {
  Tensor X = ramp5();
  // kernel 5, pads 2, count_include_pad: sums over the clipped window / 25;
  // y[0,0] = (1+2+3 + 6+7+8 + 11+12+13) / 25 = 63 / 25 = 2.52.
  auto Y = requireValue(runOp("avg_pool", {&X}, {{"kernel", Sizes{5, 5}},
                                                 {"pads", Sizes{2, 2, 2, 2}},
                                                 {"count_include_pad", int64_t(1)}}));
  checkClose(Y[0], {1, 1, 5, 5},
             {2.52, 3.6, 4.8, 4.08, 3.24, 4.56, 6.4, 8.4, 7.04, 5.52,
              7.2, 10.0, 13.0, 10.8, 8.4, 6.96, 9.6, 12.4, 10.24, 7.92,
              6.12, 8.4, 10.8, 8.88, 6.84});
  // Without count_include_pad: y[0,0] = 63 / 9 = 7.
  Y = requireValue(runOp("avg_pool", {&X}, {{"kernel", Sizes{5, 5}},
                                            {"pads", Sizes{2, 2, 2, 2}}}));
  CHECK(Y[0].at<float>(0) == Approx(7.0));
  // ceil_mode 4x4, kernel 3, stride 2: means of 9, 6, 6 and 4 inputs:
  // 6, (3+4+7+8+11+12)/6 = 7.5, 12, (11+12+15+16)/4 = 13.5.
  Tensor X4 = ramp4();
  Y = requireValue(runOp("avg_pool", {&X4}, {{"kernel", Sizes{3, 3}},
                                             {"strides", Sizes{2, 2}},
                                             {"ceil_mode", int64_t(1)}}));
  checkClose(Y[0], {1, 1, 2, 2}, {6, 7.5, 12, 13.5});
}

TEST_CASE("pooling: N-d random against naive windows", "[nn][pool]") {
  struct Case {
    Sizes X, K, S, P;
    int64_t Ceil, IncludePad;
  };
  std::vector<Case> Cases = {
      {{2, 3, 9}, {3}, {2}, {1, 2}, 0, 0},
      {{1, 2, 7, 6}, {3, 2}, {2, 3}, {1, 0, 2, 1}, 1, 1},
      {{1, 2, 7, 6}, {3, 3}, {2, 2}, {1, 1, 1, 1}, 1, 0},
      {{1, 2, 4, 5, 3}, {2, 3, 2}, {2, 1, 2}, {0, 1, 1, 1, 0, 1}, 0, 1},
  };
  uint32_t Seed = 70;
  for (const Case &C : Cases) {
    size_t NS = C.K.size();
    Tensor X = randomF32(C.X, Seed++);
    std::vector<double> XV = values(X);
    Sizes In(C.X.begin() + 2, C.X.end()), Out = {C.X[0], C.X[1]};
    for (size_t D = 0; D < NS; ++D) {
      int64_t Span = In[D] + C.P[D] + C.P[NS + D] - C.K[D];
      int64_t O = Span / C.S[D] + 1;
      if (C.Ceil && Span % C.S[D] && O * C.S[D] < In[D] + C.P[D])
        ++O;
      Out.push_back(O);
    }
    std::vector<double> WantMax, WantAvg, WantIdx;
    for (int64_t F = 0; F < count(Out); ++F) {
      Sizes OC = coordsOf(F, Out);
      double Max = -1e30, Sum = 0, Idx = -1;
      int64_t Count = 0, PadCount = 1;
      for (size_t D = 0; D < NS; ++D) {
        int64_t S = OC[2 + D] * C.S[D] - C.P[D];
        PadCount *= std::min(S + C.K[D], In[D] + C.P[NS + D]) - S;
      }
      for (int64_t KF = 0; KF < count(C.K); ++KF) {
        Sizes KC = coordsOf(KF, C.K);
        int64_t Off = OC[0] * C.X[1] + OC[1];
        bool Inside = true;
        for (size_t D = 0; D < NS; ++D) {
          int64_t I = OC[2 + D] * C.S[D] - C.P[D] + KC[D];
          Inside &= I >= 0 && I < In[D];
          Off = Off * In[D] + I;
        }
        if (!Inside)
          continue;
        if (XV[size_t(Off)] > Max) {
          Max = XV[size_t(Off)];
          Idx = double(Off);
        }
        Sum += XV[size_t(Off)];
        ++Count;
      }
      WantMax.push_back(Max);
      WantIdx.push_back(Idx);
      WantAvg.push_back(Sum / double(C.IncludePad ? PadCount : Count));
    }
    AttrMap A = {{"kernel", C.K}, {"strides", C.S}, {"pads", C.P},
                 {"ceil_mode", C.Ceil}};
    auto Y = requireValue(runOp("max_pool", {&X}, A, 2, 3));
    checkClose(Y[0], Out, WantMax);
    checkClose(Y[1], Out, WantIdx);
    A["count_include_pad"] = C.IncludePad;
    Y = requireValue(runOp("avg_pool", {&X}, A, 1, 3));
    checkClose(Y[0], Out, WantAvg);
  }
}

TEST_CASE("global pooling", "[nn][pool]") {
  // Planes [1, 2, 3, 6] and [-1, -2, -3, -4]: means 3 and -2.5, maxima 6
  // and -1.
  Tensor X = f32({1, 2, 2, 2}, {1, 2, 3, 6, -1, -2, -3, -4});
  auto Y = requireValue(runOp("global_avg_pool", {&X}));
  checkClose(Y[0], {1, 2, 1, 1}, {3, -2.5});
  Y = requireValue(runOp("global_max_pool", {&X}));
  checkClose(Y[0], {1, 2, 1, 1}, {6, -1});
  Tensor X1 = f32({1, 1, 3}, {0.5, 1.5, 4});
  Y = requireValue(runOp("global_avg_pool", {&X1}));
  checkClose(Y[0], {1, 1, 1}, {2});
}

TEST_CASE("max_pool 2-D without indices: a naive loop, NaN and ties",
          "[nn][pool]") {
  // The 2-D path without indices (what calibration runs) against the
  // definition written out here: the first window position inside the input
  // (row-major), replaced by any strictly greater one, so a NaN first stays
  // and a NaN later is skipped; bit-compared, with asymmetric pads, strides,
  // dilations, non-square windows and ceil_mode.
  struct Case {
    Sizes X, K, S, P, D;
    int64_t Ceil;
  };
  for (const Case &C : {Case{{1, 2, 7, 9}, {3, 3}, {2, 2}, {1, 1, 1, 1},
                             {1, 1}, 0},
                        Case{{2, 1, 8, 5}, {2, 3}, {3, 1}, {0, 2, 1, 0},
                             {2, 1}, 1},
                        Case{{1, 1, 4, 4}, {1, 1}, {1, 1}, {0, 0, 0, 0},
                             {1, 1}, 0}}) {
    std::vector<float> V = randomValues(count(C.X), 3);
    for (size_t I = 0; I < V.size(); I += 7)
      V[I] = V[I / 2]; // ties
    V[0] = NAN;
    V[5] = NAN;
    Tensor X = f32(C.X, V);
    auto Y = requireValue(runOp("max_pool", {&X},
                                {{"kernel", C.K},
                                 {"strides", C.S},
                                 {"pads", C.P},
                                 {"dilations", C.D},
                                 {"ceil_mode", C.Ceil}}));
    Sizes Out;
    for (const Dim &D : Y[0].type().Dims)
      Out.push_back(D.size());
    const float *Got = reinterpret_cast<const float *>(Y[0].buffer().data());
    int64_t IH = C.X[2], IW = C.X[3];
    for (int64_t Flat = 0; Flat < count(Out); ++Flat) {
      Sizes O = coordsOf(Flat, Out);
      const float *Xp = V.data() + (O[0] * C.X[1] + O[1]) * IH * IW;
      float Best = std::numeric_limits<float>::lowest();
      bool First = true;
      for (int64_t Kh = 0; Kh < C.K[0]; ++Kh)
        for (int64_t Kw = 0; Kw < C.K[1]; ++Kw) {
          int64_t Ih = O[2] * C.S[0] - C.P[0] + Kh * C.D[0];
          int64_t Iw = O[3] * C.S[1] - C.P[1] + Kw * C.D[1];
          if (Ih < 0 || Ih >= IH || Iw < 0 || Iw >= IW)
            continue;
          if (First || Xp[Ih * IW + Iw] > Best)
            Best = Xp[Ih * IW + Iw];
          First = false;
        }
      INFO("output " << Flat);
      CHECK(std::memcmp(&Got[Flat], &Best, sizeof Best) == 0);
    }
  }
}
