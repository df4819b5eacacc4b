// kiln's panel convolution kernel (PanelConv.h) and its place among the
// oneDNN kernels (OnednnPanelConv.cpp): its outputs are direct sums (in
// double, from the OHWI weights, packed into panels by the test's own
// loops), across the shapes its loops split differently (partial panels,
// pixel tiles, reduction chunks, padding, strides, the fused add); the
// session runs it on small maps with large weights only; and the weights it
// converts are what a native file stores and then uses in place.
#include "KernelTestTensors.h"
#include "cpu/onednn/OnednnCommon.h"
#include "cpu/panel/PanelConv.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace kiln;
using namespace kiln::rt;
using kiln::testing::f32Desc;
using kiln::testing::finishedOperator;
using kiln::testing::operand;
using kiln::testing::ramp;

namespace {

/// A convolution with square kernels K, stride S, padding K / 2 (same
/// padding on every side), Cin -> Cout channels on an H x H input.
struct Shape {
  int64_t H, Cin, Cout, K, S;
  int64_t out() const { return (H + 2 * (K / 2) - K) / S + 1; }
};

/// clamp(clamp(conv + bias, Min, Max) + Other, AddMin, AddMax) at one
/// output (Other: 0 and no second clamp without Add), in double.
double directSum(const Shape &C, const std::vector<float> &X,
                 const std::vector<float> &W, const std::vector<float> &B,
                 int64_t Oy, int64_t Ox, int64_t Co) {
  double Sum = B.empty() ? 0.0 : double(B[size_t(Co)]);
  const int64_t Pad = C.K / 2;
  for (int64_t Kh = 0; Kh < C.K; ++Kh)
    for (int64_t Kw = 0; Kw < C.K; ++Kw) {
      int64_t Iy = Oy * C.S + Kh - Pad, Ix = Ox * C.S + Kw - Pad;
      if (Iy < 0 || Ix < 0 || Iy >= C.H || Ix >= C.H)
        continue;
      for (int64_t Ci = 0; Ci < C.Cin; ++Ci)
        Sum += double(X[size_t((Iy * C.H + Ix) * C.Cin + Ci)]) *
               W[size_t(((Co * C.K + Kh) * C.K + Kw) * C.Cin + Ci)];
    }
  return Sum;
}

/// OHWI weights in panels of Block output channels:
/// [ceil(O / Block)][KH][KW][I][Block], the last panel padded with zeros.
std::vector<float> panels(const Shape &C, const std::vector<float> &W,
                          int64_t Block) {
  const int64_t Panels = (C.Cout + Block - 1) / Block, Taps = C.K * C.K;
  std::vector<float> Out(size_t(Panels * Taps * C.Cin * Block), 0.f);
  for (int64_t O = 0; O < C.Cout; ++O)
    for (int64_t T = 0; T < Taps; ++T)
      for (int64_t I = 0; I < C.Cin; ++I)
        Out[size_t((((O / Block) * Taps + T) * C.Cin + I) * Block +
                   O % Block)] = W[size_t((O * Taps + T) * C.Cin + I)];
  return Out;
}

} // namespace

TEST_CASE("The panel kernel computes direct sums", "[panel-conv]") {
  if (!panelConvAvailable()) {
    // Sessions never call it here: the next test checks what they run.
    WARN("this CPU has no AVX-512F: the panel kernel cannot run here");
    return;
  }
  struct Case {
    Shape C;
    int64_t Block;
    bool Bias, Add;
    float Min, Max;
  };
  // 25 pixels: full tiles and a short one (6 + 6 + 6 + 6 + 1 rows at 64
  // channels, 8 * 3 + 1 at 48, 12 * 2 + 1 at 32); 80 and 40 output channels:
  // a partial last panel; 200 input channels: two reduction chunks per tap
  // (128 + 72 at 64 channels); 3x3 with padding, stride 2 from 9x9 and
  // 8x8; a fused add with its own clamp.
  const Case Cases[] = {
      {{5, 96, 80, 1, 1}, 64, true, false, 0.f, INFINITY},
      {{5, 200, 64, 1, 1}, 64, false, false, -INFINITY, INFINITY},
      {{7, 40, 128, 3, 1}, 64, true, false, -8.f, 8.f},
      {{9, 24, 128, 3, 2}, 64, true, true, 0.f, INFINITY},
      {{8, 64, 40, 1, 2}, 32, true, true, -INFINITY, INFINITY},
      {{5, 33, 96, 3, 1}, 48, false, true, 0.f, 6.f},
      {{4, 17, 16, 3, 1}, 16, true, false, -INFINITY, INFINITY}};
  for (const Case &T : Cases) {
    const Shape &C = T.C;
    CAPTURE(C.H, C.Cin, C.Cout, C.K, C.S, T.Block, T.Add);
    const int64_t OH = C.out();
    std::vector<float> X = ramp(size_t(C.H * C.H * C.Cin), 1, 0.1f);
    std::vector<float> W = ramp(size_t(C.Cout * C.K * C.K * C.Cin), 2, 0.01f);
    std::vector<float> B = T.Bias ? ramp(size_t(C.Cout), 3, 0.05f)
                                  : std::vector<float>();
    std::vector<float> Other = ramp(size_t(OH * OH * C.Cout), 4, 0.07f);
    std::vector<float> Packed = panels(C, W, T.Block);
    std::vector<float> Y =
        T.Add ? Other : std::vector<float>(size_t(OH * OH * C.Cout), NAN);
    PanelConvProblem P;
    P.X = X.data(), P.IH = P.IW = C.H, P.IC = C.Cin;
    P.Y = Y.data(), P.OH = P.OW = OH, P.OC = C.Cout;
    P.KH = P.KW = C.K, P.StrideH = P.StrideW = C.S;
    P.PadTop = P.PadLeft = C.K / 2;
    P.Weights = Packed.data(), P.Block = T.Block;
    P.Bias = T.Bias ? B.data() : nullptr;
    P.Min = T.Min, P.Max = T.Max;
    P.Add = T.Add, P.AddMin = -1.f, P.AddMax = 4.f;
    kiln::testing::AlignedScratch Scratch(panelConvScratchBytes(P));
    runPanelConv(P, Scratch.data());
    double MaxErr = 0, MaxAbs = 0;
    size_t Clamped = 0;
    for (int64_t Oy = 0; Oy < OH; ++Oy)
      for (int64_t Ox = 0; Ox < OH; ++Ox)
        for (int64_t Co = 0; Co < C.Cout; ++Co) {
          const size_t At = size_t((Oy * OH + Ox) * C.Cout + Co);
          double Want = directSum(C, X, W, B, Oy, Ox, Co);
          Want = std::min(std::max(Want, double(T.Min)), double(T.Max));
          if (T.Add)
            Want = std::min(std::max(Want + Other[At], -1.0), 4.0);
          Clamped += Want == double(T.Min) || Want == double(T.Max) ||
                     (T.Add && (Want == -1.0 || Want == 4.0));
          MaxErr = std::max(MaxErr, std::fabs(Y[At] - Want));
          MaxAbs = std::max(MaxAbs, std::fabs(Want));
        }
    CHECK(MaxAbs > 0.5);
    CHECK(Clamped < Y.size() * 3 / 4); // values left to compare
    if (T.Add || std::isfinite(T.Min) || std::isfinite(T.Max))
      CHECK(Clamped > 0); // and the clamps were tested
    CHECK(MaxErr / MaxAbs < 1e-5);
  }
}

TEST_CASE("The panel kernel runs only where the weights stream from memory",
          "[panel-conv]") {
  PanelConvProblem P;
  P.IC = 512, P.OC = 512, P.KH = P.KW = 3, P.Block = 64;
  P.OH = P.OW = 7; // 49 pixels, 9.4 MB of weights
  CHECK(panelConvPrefers(P));
  P.OH = P.OW = 14; // 196 pixels: oneDNN's kernel is faster
  CHECK_FALSE(panelConvPrefers(P));
  P.OH = P.OW = 8;
  CHECK(panelConvPrefers(P));
  P.OH = P.OW = 7;
  P.IC = 128, P.OC = 256; // 1.2 MB
  CHECK(panelConvPrefers(P));
  P.KH = P.KW = 1; // 128 KB: L2 keeps them
  CHECK_FALSE(panelConvPrefers(P));
}

namespace {

/// A CONV_2D operator, its operands, and the weights its kernel converts.
struct ConvOp {
  Shape C;
  flatbuffers::FlatBufferBuilder Fbb;
  TensorDesc XD, WD, BD, YD;
  std::vector<float> X, W, B, Y;
  WeightArena Arena;

  explicit ConvOp(Shape C) : C(C) {
    fb::OperatorT Op;
    Op.kind = fb::OpKind::CONV_2D;
    Op.inputs = {0, 1, 2};
    Op.outputs = {3};
    fb::Conv2DOptionsT O;
    O.padding_top = O.padding_left = O.padding_bottom = O.padding_right =
        uint32_t(C.K / 2);
    O.kernel_height = O.kernel_width = uint32_t(C.K);
    O.stride_height = O.stride_width = uint32_t(C.S);
    O.group_input_channels = uint32_t(C.Cin);
    O.group_output_channels = uint32_t(C.Cout);
    O.output_min = 0;
    Op.options.Set(O);
    Fbb.Finish(fb::Operator::Pack(Fbb, &Op));
    const int64_t OH = C.out();
    XD = f32Desc({1, C.H, C.H, C.Cin});
    WD = f32Desc({C.Cout, C.K, C.K, C.Cin});
    BD = f32Desc({C.Cout});
    YD = f32Desc({1, OH, OH, C.Cout});
    X = ramp(size_t(C.H * C.H * C.Cin), 1, 0.1f);
    W = ramp(size_t(C.Cout * C.K * C.K * C.Cin), 2, 0.001f);
    B = ramp(size_t(C.Cout), 3, 0.05f);
    Y.assign(size_t(OH * OH * C.Cout), NAN);
  }
  std::unique_ptr<Kernel> kernel() {
    KernelArgs A{finishedOperator(Fbb),
                 {operand(XD, X), operand(WD, W), operand(BD, B)},
                 {operand(YD, Y)}};
    return createOnednnKernel(A, Arena);
  }
  /// The largest error of Y against relu(direct sum), relative to the
  /// largest output.
  double relativeError() const {
    const int64_t OH = C.out();
    double MaxErr = 0, MaxAbs = 0;
    for (int64_t Oy = 0; Oy < OH; ++Oy)
      for (int64_t Ox = 0; Ox < OH; ++Ox)
        for (int64_t Co = 0; Co < C.Cout; ++Co) {
          double Want = std::max(directSum(C, X, W, B, Oy, Ox, Co), 0.0);
          MaxErr = std::max(
              MaxErr,
              std::fabs(Y[size_t((Oy * OH + Ox) * C.Cout + Co)] - Want));
          MaxAbs = std::max(MaxAbs, Want);
        }
    REQUIRE(MaxAbs > 0.5);
    return MaxErr / MaxAbs;
  }
};

} // namespace

TEST_CASE("A session runs 7x7 convolutions with large weights on the panel "
          "kernel, and a native file's copy of its weights in place",
          "[panel-conv]") {
  // ResNet-50's layer4: 3x3 512 -> 512 at 7x7, and its stride-2 entry.
  for (Shape C : {Shape{7, 512, 512, 3, 1}, Shape{14, 512, 512, 3, 2}}) {
    CAPTURE(C.H, C.S);
    ConvOp Op(C);
    std::unique_ptr<Kernel> K = Op.kernel();
    REQUIRE(K);
    kiln::testing::KernelScratch Scratch(*K);
    REQUIRE(K->run(nullptr).isOk());
    // 4608 products a sum, in f32.
    CHECK(Op.relativeError() < 3e-5);
    if (!onednn::panelConvRuns()) {
      // The path this CPU takes: oneDNN's direct kernel, checked above.
      WARN("no AVX-512 (in the CPU or oneDNN's ISA): the panel kernel does "
           "not run here; its layers run on oneDNN's direct kernel");
      CHECK(std::string(K->engine()) == "onednn");
      continue;
    }
    CHECK(std::string(K->engine()) == "kiln");

    // What `--prepack native` stores: oneDNN's Acdb64a, converted again by
    // Pack to the same bytes the session converted.
    std::optional<PackedWeights> Packed = K->packedWeights();
    REQUIRE(Packed);
    CHECK(Packed->Layout.Library == "onednn");
    CHECK(Packed->Layout.InnerBlocks == std::vector<int64_t>{64});
    CHECK(Packed->Layout.InnerDims == std::vector<int32_t>{0});
    REQUIRE(Packed->Bytes == uint64_t(512 * 9 * 512 * 4));
    std::vector<float> Native(Packed->Bytes / 4, NAN);
    REQUIRE(Packed->Pack(reinterpret_cast<const uint8_t *>(Op.W.data()),
                         reinterpret_cast<uint8_t *>(Native.data())));
    REQUIRE(std::memcmp(Native.data(), Packed->Data, Packed->Bytes) == 0);
    CHECK(Native != Op.W); // not OHWI: the conversion did something

    // A file that stores them so: the kernel reads them where they are.
    ConvOp FromFile(C);
    FromFile.WD.Blocked = Packed->Layout;
    FromFile.WD.StoredBytes = Packed->Bytes;
    FromFile.W = Native;
    std::unique_ptr<Kernel> InPlace = FromFile.kernel();
    REQUIRE(InPlace);
    CHECK(std::string(InPlace->engine()) == "kiln");
    CHECK_FALSE(InPlace->packedWeights()); // nothing converted
    kiln::testing::KernelScratch InPlaceScratch(*InPlace);
    REQUIRE(InPlace->run(nullptr).isOk());
    CHECK(FromFile.Y == Op.Y);
  }
  // 14x14 and more stay on oneDNN's kernel.
  ConvOp Larger(Shape{14, 512, 512, 3, 1});
  std::unique_ptr<Kernel> K = Larger.kernel();
  REQUIRE(K);
  CHECK(std::string(K->engine()) == "onednn");
}
