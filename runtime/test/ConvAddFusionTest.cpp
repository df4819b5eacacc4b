// The conv + add fusion (OperatorFusion.h): a residual block
//   s = relu(conv1(x)); a = relu(conv2(s)); c = conv3(a); y = relu(c + s)
// runs with the add folded into conv3 where the runtime has oneDNN, and
// gives the reference kernels' values. Nothing is fused when the add's
// other operand is still read after the add, or is the conv's own input
// (y = relu(conv2(s) + s): the conv would overwrite what it reads).
#include "RuntimeTestModels.h"
#include "TestSession.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

constexpr int64_t H = 5, W = 5, C = 4;

int32_t conv3x3(KilnModule &M, const std::string &Name, int32_t X, float Min,
                int Seed) {
  std::vector<float> Wt(size_t(C * 3 * 3 * C));
  for (size_t I = 0; I < Wt.size(); ++I)
    Wt[I] = float(int((I * 7 + size_t(Seed)) % 11) - 5) * 0.1f;
  int32_t WI = addFloats(M, Name + ".w", {C, 3, 3, C}, Wt, fb::Layout::OHWI);
  int32_t B = addFloats(M, Name + ".b", {C}, {0.1f, -0.2f, 0.3f, -0.4f});
  int32_t Y = addTensor(M, Name, fb::DType::F32, {1, H, W, C}, fb::Layout::NHWC);
  fb::Conv2DOptionsT O;
  O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
  O.kernel_height = O.kernel_width = 3;
  O.groups = 1;
  O.group_input_channels = O.group_output_channels = C;
  O.output_min = Min;
  addOp(M, fb::OpKind::CONV_2D, {X, WI, B}, {Y}, O);
  return Y;
}

enum class Block { Fusible, Reread, SkipIsConvInput };

/// The block. Reread: a last conv reads s after the add (so its bytes
/// cannot hold the add's output) and is a second output. SkipIsConvInput:
/// no middle conv, the conv before the add reads s.
KilnModule residualBlock(Block Kind) {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {1, H, W, C}, fb::Layout::NHWC);
  const float Inf = INFINITY;
  int32_t S = conv3x3(M, "s", X, 0, 1);
  int32_t Mid = Kind == Block::SkipIsConvInput ? S : conv3x3(M, "a", S, 0, 4);
  int32_t Cv = conv3x3(M, "c", Mid, -Inf, 2);
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, H, W, C}, fb::Layout::NHWC);
  fb::BinaryOptionsT Add;
  Add.op = fb::BinaryOp::ADD;
  Add.output_min = 0; // relu
  addOp(M, fb::OpKind::BINARY, {Cv, S}, {Y}, Add);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  if (Kind == Block::Reread)
    M.Model.outputs.push_back(conv3x3(M, "t", S, -Inf, 3));
  return M;
}

struct Run {
  std::vector<float> Y;
  std::vector<std::string> Engines;
};

Run run(const std::string &Bytes, Kernels K) {
  TestSession S(Bytes, K);
  std::vector<float> X(size_t(H * W * C));
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = float(int(I * 5 % 13) - 6) * 0.3f;
  S.run(X.data(), X.size() * 4);
  return {S.output<float>(), S.engines()};
}

/// Runs Kind on the default kernels and on the reference kernels: the
/// values agree, and the default session's engines are Engines.
void checkBlock(Block Kind, const std::vector<std::string> &Engines) {
  std::string Bytes = bytesOf(residualBlock(Kind));
  Run Native = run(Bytes, Kernels::Default),
      Reference = run(Bytes, Kernels::ReferenceOnly);
  REQUIRE(Native.Y.size() == size_t(H * W * C));
  REQUIRE(Native.Y.size() == Reference.Y.size());
  int Positive = 0;
  for (size_t I = 0; I < Native.Y.size(); ++I) {
    REQUIRE(Native.Y[I] == Approx(Reference.Y[I]).margin(1e-5));
    Positive += Reference.Y[I] > 0;
  }
  REQUIRE(Positive > 20); // the relu leaves a signal, not all zeros
  REQUIRE(Native.Engines == Engines);
}

/// E where the runtime has oneDNN, else XNNPACK for all N operators.
std::vector<std::string> withOnednn(std::vector<std::string> E) {
#ifdef KILN_WITH_ONEDNN
  return E;
#else
  return std::vector<std::string>(E.size(), "xnnpack");
#endif
}

} // namespace

TEST_CASE("a conv + add pair is fused and matches the reference kernels",
          "[fusion]") {
  // conv1, conv2, conv3 with the add folded in, and the add itself reported
  // as oneDNN's (it costs nothing).
  checkBlock(Block::Fusible, withOnednn({"onednn", "onednn", "onednn", "onednn"}));
}

TEST_CASE("an add whose operand is read later is not fused", "[fusion]") {
  checkBlock(Block::Reread,
             withOnednn({"onednn", "onednn", "onednn", "xnnpack", "onednn"}));
}

TEST_CASE("an add of a conv and the conv's own input is not fused",
          "[fusion]") {
  checkBlock(Block::SkipIsConvInput, withOnednn({"onednn", "onednn", "xnnpack"}));
}
