// oneDNN's Winograd convolutions (OnednnWinograd.cpp): the weights kiln
// transforms itself are the bytes oneDNN's own reorder writes, the kernel's
// outputs are a direct convolution's (summed here in double), and the shapes
// it loses on are left to the direct kernel. A session gives its Winograd
// kernels one shared scratch buffer (their activation copies and oneDNN's
// scratchpads), counted against max_arena_bytes. oneDNN 2.6 has Winograd
// kernels for AVX-512 only: on other CPUs (or under ONEDNN_MAX_CPU_ISA=AVX2)
// the tests check that the same convolutions run on its direct kernel.
#include "KernelTestTensors.h"
#include "cpu/onednn/OnednnCommon.h"
#include "OnednnIsa.h"
#include "RuntimeTestModels.h"
#include "TestSession.h"
#include "cpu/onednn/WinogradWeights.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

using namespace kiln;
using namespace kiln::rt;
using dnnl::memory;
using kiln::testing::f32Desc;
using kiln::testing::finishedOperator;
using kiln::testing::operand;
using kiln::testing::ramp;
using Tag = memory::format_tag;

namespace {

/// Whether oneDNN has its Winograd kernel on this CPU; says so when not.
bool winogradOnThisCpu() {
  if (kiln::testing::onednnHasAvx512())
    return true;
  WARN("no AVX-512 in oneDNN's ISA: no Winograd kernel here, its "
       "convolutions run on oneDNN's direct kernel");
  return false;
}

/// oneDNN's F(2x2, 3x3) convolution of O x I channels at HxW (padded by
/// 1), with a bias and a relu when Relu, its scratchpad left to the caller;
/// for one thread, since the scratchpad grows with the thread count.
std::optional<dnnl::convolution_forward::primitive_desc>
winogradPrimitiveIfAny(int64_t O, int64_t I, int64_t H, bool Relu = false) {
  const auto F32 = memory::data_type::f32;
  memory::desc Src({1, I, H, H}, F32, Tag::nChw16c),
      Dst({1, O, H, H}, F32, Tag::nChw16c), W({O, I, 3, 3}, F32, Tag::any),
      B({O}, F32, Tag::x);
  using Desc = dnnl::convolution_forward::desc;
  const auto Inference = dnnl::prop_kind::forward_inference;
  const auto Winograd = dnnl::algorithm::convolution_winograd;
  Desc D = Relu ? Desc(Inference, Winograd, Src, W, B, Dst, {1, 1}, {0, 0},
                       {1, 1}, {1, 1})
                : Desc(Inference, Winograd, Src, W, Dst, {1, 1}, {0, 0},
                       {1, 1}, {1, 1});
  dnnl::post_ops Ops;
  if (Relu)
    Ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  dnnl::primitive_attr Attr;
  Attr.set_post_ops(Ops);
  Attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  onednn::OneOpenMpThread One; // as the runtime creates it
  dnnl::convolution_forward::primitive_desc PD(D, Attr, onednn::cpuEngine());
  if (!onednn::seekImplementation(PD, onednn::named("wino_2x3")))
    return std::nullopt;
  return PD;
}

/// The same where the test needs the kernel: oneDNN has it on every
/// AVX-512 CPU for 64 channels at 56x56.
dnnl::convolution_forward::primitive_desc
winogradPrimitive(int64_t O, int64_t I, int64_t H, bool Relu = false) {
  auto PD = winogradPrimitiveIfAny(O, I, H, Relu);
  REQUIRE(PD);
  return *PD;
}

memory::desc winogradWeightsDesc(int64_t O, int64_t I, int64_t H) {
  return winogradPrimitive(O, I, H).weights_desc();
}

/// What oneDNN's Winograd kernel needs for its transformed tiles.
size_t winogradScratchpadBytes(int64_t O, int64_t I, int64_t H, bool Relu) {
  size_t Bytes =
      winogradPrimitive(O, I, H, Relu).scratchpad_desc().get_size();
  REQUIRE(Bytes > 0);
  return Bytes;
}

/// oneDNN's reorder of the OHWI weight W into Want (the runtime's fallback,
/// oneDNN's code throughout): the reference kiln's transform must match.
std::vector<float> reorderedByOnednn(const memory::desc &Want,
                                     const std::vector<float> &W, int64_t O,
                                     int64_t I) {
  std::vector<float> Out(Want.get_size() / sizeof(float));
  onednn::reorderToWinograd(Want, W.data(), O, I, Out.data());
  return Out;
}

} // namespace

TEST_CASE("Winograd weights are the bytes oneDNN's reorder writes",
          "[winograd]") {
  if (!winogradOnThisCpu())
    return; // no layout to compare with: the session tests check the path
  struct Case {
    int64_t O, I, H;
    dnnl_wino_memory_format_t Format;
  };
  int Compared = 0;
  // aaOBiOo with one, two and four output blocks a chunk; aaOio (which
  // oneDNN picks at 14x14); and channel counts that are not multiples of
  // the 16-channel blocks, whose padding must be zeros.
  for (Case C : {Case{64, 64, 56, dnnl_wino_wei_aaOBiOo},
                 Case{128, 128, 28, dnnl_wino_wei_aaOBiOo},
                 Case{128, 64, 56, dnnl_wino_wei_aaOBiOo},
                 Case{256, 256, 14, dnnl_wino_wei_aaOio},
                 Case{40, 48, 30, dnnl_wino_wei_aaOBiOo}}) {
    CAPTURE(C.O, C.I, C.H);
    // oneDNN sizes its blocking by this CPU's L2 cache and declines a shape
    // it cannot block (128 channels at 28x28 on an AMD EPYC with AVX-512);
    // the runtime then takes the direct kernel ("left to the direct
    // kernel" below), so there is no layout of that shape to compare.
    auto PD = winogradPrimitiveIfAny(C.O, C.I, C.H);
    if (!PD) {
      WARN("oneDNN has no Winograd kernel for " << C.O << "x" << C.I
                                                << " channels at " << C.H
                                                << "x" << C.H
                                                << " on this CPU");
      continue;
    }
    ++Compared;
    memory::desc Want = PD->weights_desc();
    const dnnl_wino_desc_t &Wino = Want.data.format_desc.wino_desc;
    REQUIRE(Wino.wino_format == C.Format);
    std::vector<float> W = ramp(size_t(C.O * 9 * C.I), int(C.O), 0.03f);
    std::vector<float> Expected = reorderedByOnednn(Want, W, C.O, C.I);
    std::vector<float> Got(Expected.size(), NAN);
    REQUIRE(transformWinogradWeights(Wino, W.data(), C.O, C.I, Got.data()));
    CHECK(std::memcmp(Got.data(), Expected.data(), Got.size() * 4) == 0);
    // Not vacuous: the weights are not all zeros, and padding is.
    CHECK(std::count(Got.begin(), Got.end(), 0.f) <
          std::ptrdiff_t(Got.size()) / 2);
  }
  // Both layouts were compared on every AVX-512 CPU seen so far.
  CHECK(Compared >= 3);
}

TEST_CASE("Winograd layouts kiln does not write are left to oneDNN",
          "[winograd]") {
  if (!winogradOnThisCpu())
    return;
  memory::desc Want = winogradWeightsDesc(64, 64, 56);
  dnnl_wino_desc_t Wino = Want.data.format_desc.wino_desc;
  std::vector<float> W(64 * 9 * 64, 1.f), Out(Wino.size / 4, 7.f);
  dnnl_wino_desc_t Other = Wino;
  Other.wino_format = dnnl_wino_wei_aaOIoi;
  CHECK_FALSE(transformWinogradWeights(Other, W.data(), 64, 64, Out.data()));
  Other = Wino;
  Other.r = 5; // not a 3x3 transform
  CHECK_FALSE(transformWinogradWeights(Other, W.data(), 64, 64, Out.data()));
  // More channels than the layout holds.
  CHECK_FALSE(transformWinogradWeights(Wino, W.data(), 80, 64, Out.data()));
  CHECK_FALSE(transformWinogradWeights(Wino, W.data(), 64, 80, Out.data()));
  Other = Wino;
  Other.size -= 4;
  CHECK_FALSE(transformWinogradWeights(Other, W.data(), 64, 64, Out.data()));
  CHECK(std::all_of(Out.begin(), Out.end(), [](float V) { return V == 7.f; }));
}

namespace {

/// A CONV_2D operator with 3x3 kernels, 1 pixel of padding and a relu.
struct ConvOp {
  int64_t H, Cin, Cout;
  uint32_t Stride = 1;
  flatbuffers::FlatBufferBuilder Fbb;
  TensorDesc XD, WD, BD, YD;
  std::vector<float> X, W, B, Y;
  WeightArena Arena; // the kernel's transformed weights

  ConvOp(int64_t H, int64_t Cin, int64_t Cout, uint32_t Stride = 1)
      : H(H), Cin(Cin), Cout(Cout), Stride(Stride) {
    fb::OperatorT Op;
    Op.kind = fb::OpKind::CONV_2D;
    Op.inputs = {0, 1, 2};
    Op.outputs = {3};
    fb::Conv2DOptionsT O;
    O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
    O.kernel_height = O.kernel_width = 3;
    O.stride_height = O.stride_width = Stride;
    O.group_input_channels = uint32_t(Cin);
    O.group_output_channels = uint32_t(Cout);
    O.output_min = 0;
    Op.options.Set(O);
    Fbb.Finish(fb::Operator::Pack(Fbb, &Op));
    const int64_t OH = (H - 1) / Stride + 1;
    XD = f32Desc({1, H, H, Cin});
    WD = f32Desc({Cout, 3, 3, Cin});
    BD = f32Desc({Cout});
    YD = f32Desc({1, OH, OH, Cout});
    X = ramp(size_t(H * H * Cin), 1, 0.1f);
    W = ramp(size_t(Cout * 9 * Cin), 2, 0.01f);
    B = ramp(size_t(Cout), 3, 0.05f);
    Y.assign(size_t(OH * OH * Cout), NAN);
  }
  std::unique_ptr<Kernel> kernel() {
    KernelArgs A{finishedOperator(Fbb),
                 {operand(XD, X), operand(WD, W), operand(BD, B)},
                 {operand(YD, Y)}};
    return onednn::createWinogradKernel(A, Arena);
  }
  /// The kernel the session chooses (oneDNN's Winograd or direct one).
  std::unique_ptr<Kernel> sessionKernel() {
    KernelArgs A{finishedOperator(Fbb),
                 {operand(XD, X), operand(WD, W), operand(BD, B)},
                 {operand(YD, Y)}};
    return createOnednnKernel(A, Arena);
  }
  /// relu(conv(x) + b) at output pixel (Oy, Ox), channel Co, in double.
  double direct(int64_t Oy, int64_t Ox, int64_t Co) const {
    double Sum = B[size_t(Co)];
    for (int64_t Kh = 0; Kh < 3; ++Kh)
      for (int64_t Kw = 0; Kw < 3; ++Kw) {
        int64_t Iy = Oy * Stride + Kh - 1, Ix = Ox * Stride + Kw - 1;
        if (Iy < 0 || Ix < 0 || Iy >= H || Ix >= H)
          continue;
        for (int64_t Ci = 0; Ci < Cin; ++Ci)
          Sum += double(X[size_t((Iy * H + Ix) * Cin + Ci)]) *
                 W[size_t(((Co * 3 + Kh) * 3 + Kw) * Cin + Ci)];
      }
    return std::max(Sum, 0.0);
  }
};

} // namespace

TEST_CASE("A 64-channel 3x3 convolution at 28x28 runs on Winograd and "
          "matches the direct sum",
          "[winograd]") {
  ConvOp C(28, 64, 80);
  std::unique_ptr<Kernel> K = C.kernel();
  if (winogradOnThisCpu()) {
    REQUIRE(K);
    // Its working copies: the input (64 channels, already a multiple of the
    // 16-channel block) and the output (80 channels), at 28x28, in f32
    // (both multiples of 64 bytes), then oneDNN's scratchpad.
    const size_t InputCopy = 28 * 28 * 64 * 4, OutputCopy = 28 * 28 * 80 * 4;
    REQUIRE(K->scratchBytes() == InputCopy + OutputCopy +
                                     winogradScratchpadBytes(80, 64, 28, true));
  } else {
    REQUIRE_FALSE(K);
    K = C.sessionKernel();
    REQUIRE(K);
  }
  CHECK(std::string(K->engine()) == "onednn");
  // Filled with NaN: the kernel must write each copy before it reads it.
  kiln::testing::KernelScratch Scratch(*K);
  Status Ran = K->run(nullptr);
  INFO(Ran.message());
  REQUIRE(Ran.isOk());
  double MaxErr = 0, MaxAbs = 0;
  size_t Positive = 0;
  for (int64_t Y = 0; Y < 28; ++Y)
    for (int64_t X = 0; X < 28; ++X)
      for (int64_t Co = 0; Co < 80; ++Co) {
        double Want = C.direct(Y, X, Co);
        double Got = C.Y[size_t((Y * 28 + X) * 80 + Co)];
        MaxErr = std::max(MaxErr, std::fabs(Got - Want));
        MaxAbs = std::max(MaxAbs, std::fabs(Want));
        Positive += Want > 0;
      }
  CHECK(Positive > C.Y.size() / 4); // the relu leaves values to compare
  CHECK(MaxErr / MaxAbs < 1e-5);
}

TEST_CASE("Convolutions Winograd loses on are left to the direct kernel",
          "[winograd]") {
  CHECK_FALSE(ConvOp(56, 32, 32).kernel()); // too few channels
  CHECK_FALSE(ConvOp(56, 64, 48).kernel());
  CHECK_FALSE(ConvOp(14, 256, 256).kernel()); // too small a map
  CHECK_FALSE(ConvOp(56, 64, 64, 2).kernel()); // stride 2
  ConvOp Blocked(28, 64, 64);
  Blocked.WD.Blocked = BlockedDesc{};
  CHECK_FALSE(Blocked.kernel()); // weights already in another layout
  CHECK(bool(ConvOp(28, 64, 64).kernel()) == winogradOnThisCpu());
}

namespace {

/// A session over one 64 -> 64 3x3 convolution at 28x28 (a Winograd
/// shape), with max_arena_bytes Limit; the status of kiln_session_create.
kiln_status createWinogradSession(uint64_t Limit, size_t &Arena,
                                  size_t &Scratch, std::string &Error) {
  using namespace kiln::testmodels;
  KilnModule M;
  int32_t X =
      addTensor(M, "x", fb::DType::F32, {1, 28, 28, 64}, fb::Layout::NHWC);
  int32_t W = addFloats(M, "w", {64, 3, 3, 64}, ramp(64 * 9 * 64, 2, 0.01f),
                        fb::Layout::OHWI);
  int32_t Y =
      addTensor(M, "y", fb::DType::F32, {1, 28, 28, 64}, fb::Layout::NHWC);
  fb::Conv2DOptionsT O;
  O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
  O.kernel_height = O.kernel_width = 3;
  O.groups = 1;
  O.group_input_channels = O.group_output_channels = 64;
  addOp(M, fb::OpKind::CONV_2D, {X, W}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::string Bytes = bytesOf(std::move(M));
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
          KILN_OK);
  kiln_session_options Options = TestSession::options(Kernels::Default);
  Options.max_arena_bytes = Limit;
  kiln_session *Session = nullptr;
  kiln_status St = kiln_session_create(Model, &Options, &Session);
  Error = St == KILN_OK ? "" : kiln_last_error();
  Arena = kiln_session_arena_bytes(Session);
  Scratch = kiln_session_scratch_bytes(Session);
  kiln_session_destroy(Session);
  kiln_model_destroy(Model);
  return St;
}

} // namespace

TEST_CASE("A session's Winograd scratch is reported and counted against "
          "max_arena_bytes",
          "[winograd]") {
  size_t Arena = 0, Scratch = 0;
  std::string Error;
  REQUIRE(createWinogradSession(0, Arena, Scratch, Error) == KILN_OK);
  const bool Winograd = winogradOnThisCpu();
  if (Winograd) // the nChw16c copies of the input and the output, 28*28*64
                // floats each, and oneDNN's scratchpad
    CHECK(Scratch ==
          2 * 28 * 28 * 64 * 4 + winogradScratchpadBytes(64, 64, 28, false));
  else // the direct kernel works on the NHWC tensors: no copies
    CHECK(Scratch < 28 * 28 * 64 * 4);
  CHECK(Arena >= 2 * 28 * 28 * 64 * 4); // x and y, both live
  const uint64_t Needed = Arena + Scratch;
  size_t A = 0, S = 0;
  CHECK(createWinogradSession(Needed, A, S, Error) == KILN_OK);
  CHECK(createWinogradSession(Needed - 1, A, S, Error) ==
        KILN_ERROR_OUT_OF_MEMORY);
  CHECK_THAT(Error, Catch::Contains("above the limit of " +
                                    std::to_string(Needed - 1)));
  if (Winograd)
    CHECK_THAT(Error, Catch::Contains("for its kernels' working copies"));
}
