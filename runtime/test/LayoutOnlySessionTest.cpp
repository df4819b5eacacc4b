// A layout-only CPU session (CpuOptions::LayoutOnly), which `kiln convert
// --prepack native` creates: its kernels choose the same blocked layouts as
// a session that converts its weights, convert none, and refuse to run; and
// the conversion each one reports (PackedWeights::Pack) writes exactly the
// bytes the converting session made, padding included, which unpackBlocked
// turns back into the weight.
#include "loader/BlockedLayout.h"
#include "loader/LoadedModel.h"
#include "target/RuntimeTargets.h"
#include "loader/ModelBytes.h"
#include "RuntimeTestModels.h"
#include "cpu/CpuExecutor.h"
#include "kiln/native_layouts.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

// A 3x3 convolution NHWC [1,6,6,64] -> [1,6,6,36], padding 1: dense f32,
// which oneDNN takes; 36 output channels pad to oneDNN's blocks (8 to 64).
constexpr int64_t In = 64, Out = 36, Side = 6;

std::vector<float> weightValues() {
  std::vector<float> W(size_t(Out * 3 * 3 * In));
  for (size_t K = 0; K < W.size(); ++K)
    W[K] = float(int(K % 23) - 11) * 0.125f;
  return W;
}

KilnModule wideConvModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {1, Side, Side, In},
                        fb::Layout::NHWC);
  int32_t W = addFloats(M, "w", {Out, 3, 3, In}, weightValues(),
                        fb::Layout::OHWI);
  int32_t B = addFloats(M, "b", {Out}, std::vector<float>(size_t(Out), 0.5f));
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, Side, Side, Out},
                        fb::Layout::NHWC);
  fb::Conv2DOptionsT O;
  O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
  O.kernel_height = O.kernel_width = 3;
  O.groups = 1;
  O.group_input_channels = In;
  O.group_output_channels = Out;
  addOp(M, fb::OpKind::CONV_2D, {X, W, B}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

std::unique_ptr<rt::CpuExecutor> session(const std::string &Bytes, bool LayoutOnly) {
  std::shared_ptr<const rt::LoadedModel> Model;
  rt::Status Loaded = rt::loadVerifiedModel(
      rt::ModelBytes::borrow(Bytes.data(), Bytes.size()), Model);
  INFO(Loaded.message());
  REQUIRE(Loaded.isOk());
  rt::SessionOptions Opts;
  Opts.Threads = 1;
  Opts.Cpu.LayoutOnly = LayoutOnly;
  std::unique_ptr<rt::CpuExecutor> S;
  rt::Status Created = rt::CpuExecutor::create(Model, Opts, S);
  INFO(Created.message());
  REQUIRE(Created.isOk());
  return S;
}

} // namespace

TEST_CASE("a layout-only session chooses the converting session's layouts "
          "and converts nothing",
          "[layout-only]") {
  const std::string Bytes = bytesOf(wideConvModule());
  auto Converting = session(Bytes, false);
  auto LayoutOnly = session(Bytes, true);
  REQUIRE(std::string(Converting->engine(0)) == "onednn");
  REQUIRE(std::string(LayoutOnly->engine(0)) == "onednn");
  auto Made = Converting->packedWeights();
  auto Chosen = LayoutOnly->packedWeights();
  REQUIRE(Made.size() == 1);
  REQUIRE(Chosen.size() == 1);
  REQUIRE(Made[0].first == 1); // tensor "w"
  REQUIRE(Chosen[0].first == 1);
  const rt::PackedWeights &M = Made[0].second, &C = Chosen[0].second;
  REQUIRE(M.Data != nullptr);
  REQUIRE(C.Data == nullptr);
  REQUIRE(C.Bytes == M.Bytes);
  REQUIRE(C.Layout.Order == M.Layout.Order);
  REQUIRE(C.Layout.Padded == M.Layout.Padded);
  REQUIRE(C.Layout.Strides == M.Layout.Strides);
  REQUIRE(C.Layout.InnerBlocks == M.Layout.InnerBlocks);
  REQUIRE(C.Layout.InnerDims == M.Layout.InnerDims);
  // Output channels in blocks: the layout pads them.
  const int64_t PaddedOut = C.Layout.Padded[0];
  REQUIRE(PaddedOut > Out);
  REQUIRE(C.Bytes == uint64_t(PaddedOut * In * 3 * 3 * 4));

  SECTION("its conversion writes the converting session's bytes") {
    std::vector<float> W = weightValues();
    std::vector<uint8_t> Packed(size_t(C.Bytes), 0xAB); // padding must clear
    REQUIRE(C.Pack(reinterpret_cast<const uint8_t *>(W.data()), Packed.data()));
    REQUIRE(std::memcmp(Packed.data(), M.Data, size_t(M.Bytes)) == 0);
    rt::TensorDesc D;
    D.DType = fb::DType::F32;
    D.Layout = fb::Layout::BLOCKED;
    D.Shape = {Out, 3, 3, In};
    D.Elements = uint64_t(W.size());
    D.Bytes = D.Elements * 4;
    D.Blocked = C.Layout;
    std::vector<uint8_t> Back = rt::unpackBlocked(D, Packed.data(), 0);
    REQUIRE(std::memcmp(Back.data(), W.data(), size_t(D.Bytes)) == 0);
  }
  SECTION("the compiler's entry (kiln/native_layouts.h) reports the same") {
    std::vector<kiln::runtime::NativeWeight> Native;
    std::string Error;
    REQUIRE(kiln::runtime::nativeWeightLayouts(Bytes.data(), Bytes.size(),
                                               Native, Error));
    REQUIRE(Native.size() == 1);
    REQUIRE(Native[0].Tensor == 1);
    REQUIRE(Native[0].Bytes == C.Bytes);
    REQUIRE(Native[0].Layout.Isa == C.Layout.Isa);
    REQUIRE(Native[0].Layout.PaddedDims == C.Layout.Padded);
    REQUIRE(Native[0].Layout.Strides == C.Layout.Strides);
    REQUIRE(Native[0].Layout.InnerBlocks == C.Layout.InnerBlocks);
  }
  SECTION("the compiler's entry rejects bytes that are not a model") {
    std::vector<kiln::runtime::NativeWeight> Native;
    std::string Error;
    const std::string Junk(64, 'x');
    REQUIRE_FALSE(kiln::runtime::nativeWeightLayouts(Junk.data(), Junk.size(),
                                                     Native, Error));
    REQUIRE_THAT(Error, Catch::Contains("not a .kiln file"));
  }
  SECTION("it refuses to run") {
    std::vector<float> X(size_t(Side * Side * In), 1.f);
    std::memcpy(LayoutOnly->hostTensor(0), X.data(), X.size() * 4); // "x"
    rt::Status Ran = LayoutOnly->run(nullptr);
    REQUIRE_FALSE(Ran.isOk());
    REQUIRE_THAT(Ran.message(), Catch::Contains("layout-only session cannot run"));
    std::memcpy(Converting->hostTensor(0), X.data(), X.size() * 4);
    REQUIRE(Converting->run(nullptr).isOk());
  }
}
