// Int8 MUL and int8 UNARY (schema 1.8) against textbook arithmetic in
// double: the operands' real values, the float op, the result quantized
// with round half to even. XNNPACK's qs8 multiply and the reference kernels
// must land within one quantum; the unary table must equal the textbook
// formula on all 256 inputs but for at most a few rounding ties.
#include "RuntimeTestModels.h"
#include "TestSession.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

void setQuant(KilnModule &M, int32_t T, float Scale, int64_t Zero) {
  auto Q = std::make_unique<fb::QuantParamsT>();
  Q->scale = {Scale};
  Q->zero_point = {Zero};
  M.Model.tensors[size_t(T)]->quant = std::move(Q);
}

int quantize(double V, double Scale, int Zero) {
  return int(std::min(127.0, std::max(-128.0, std::nearbyint(V / Scale) + Zero)));
}

// A squeeze-and-excitation gate: x i8 [1,2,2,3] (scale 0.1, zp 4) times a
// constant g i8 [1,1,1,3] (scale 0.02, zp -10), broadcast over H and W, to
// y i8 (scale 0.15, zp 2).
const float AS = 0.1f, GS = 0.02f, MS = 0.15f;
const int AZ = 4, GZ = -10, MZ = 2;
const std::vector<int8_t> Gate = {60, -40, 117};

KilnModule int8GateModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {1, 2, 2, 3}, fb::Layout::NHWC);
  setQuant(M, X, AS, AZ);
  int32_t G = addTensor(M, "g", fb::DType::I8, {1, 1, 1, 3}, fb::Layout::NHWC);
  M.Model.tensors[size_t(G)]->buffer =
      M.addSegment(Buffer::own(std::vector<uint8_t>(Gate.begin(), Gate.end())));
  setQuant(M, G, GS, GZ);
  int32_t Y = addTensor(M, "y", fb::DType::I8, {1, 2, 2, 3}, fb::Layout::NHWC);
  setQuant(M, Y, MS, MZ);
  fb::BinaryOptionsT O;
  O.op = fb::BinaryOp::MUL;
  addOp(M, fb::OpKind::BINARY, {X, G}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

// x i8 [N] (259 by default: every int8 value, then three more past a
// multiple of eight, the kernel's tail) (scale 0.05, zp 3) -> UNARY -> y i8.
KilnModule int8UnaryModule(const fb::UnaryOptionsT &O, float YS, int64_t YZ,
                           int64_t N = 259) {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {N});
  setQuant(M, X, 0.05f, 3);
  int32_t Y = addTensor(M, "y", fb::DType::I8, {N});
  setQuant(M, Y, YS, YZ);
  addOp(M, fb::OpKind::UNARY, {X}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

} // namespace

TEST_CASE("int8 MUL broadcasts a gate and matches real arithmetic",
          "[int8]") {
  std::vector<int8_t> X(12);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = int8_t(int(I * 37 % 200) - 100);
  std::vector<int> Want;
  for (size_t I = 0; I < X.size(); ++I)
    Want.push_back(quantize((X[I] - AZ) * double(AS) *
                                (Gate[I % 3] - GZ) * double(GS),
                            MS, MZ));
  // Not degenerate: the products spread over the range, some saturate.
  REQUIRE(std::set<int>(Want.begin(), Want.end()).size() >= 8);
  std::string Bytes = bytesOf(int8GateModule());
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    TestSession S(Bytes, K);
    std::string Engine = K == Kernels::ReferenceOnly ? "reference" : "xnnpack";
    REQUIRE(S.engines() == std::vector<std::string>{Engine});
    S.run(X.data(), X.size());
    std::vector<int8_t> Y = S.output<int8_t>();
    REQUIRE(Y.size() == Want.size());
    INFO(Engine);
    for (size_t I = 0; I < Y.size(); ++I) {
      INFO("element " << I);
      REQUIRE(std::abs(Y[I] - Want[I]) <= 1);
    }
  }
}

TEST_CASE("int8 UNARY tables match the textbook activations on every input",
          "[int8]") {
  struct Case {
    const char *Name;
    fb::UnaryOp Op;
    float Alpha, Beta;
    float YS;
    int64_t YZ;
    std::function<double(double)> F;
  };
  auto Sigmoid = [](double X) { return 1 / (1 + std::exp(-X)); };
  const Case Cases[] = {
      {"hard_swish", fb::UnaryOp::HARD_SWISH, 0, 0, 0.04f, -60,
       [](double X) { return X * std::min(6.0, std::max(0.0, X + 3)) / 6; }},
      {"hard_sigmoid", fb::UnaryOp::HARD_SIGMOID, 1.f / 6, 0.5f, 1.f / 255,
       -128, [](double X) { return std::min(1.0, std::max(0.0, X / 6 + 0.5)); }},
      {"sigmoid", fb::UnaryOp::SIGMOID, 0, 0, 1.f / 250, -126, Sigmoid},
      {"tanh", fb::UnaryOp::TANH, 0, 0, 1.f / 127, 0,
       [](double X) { return std::tanh(X); }},
      {"leaky_relu", fb::UnaryOp::LEAKY_RELU, 0.1f, 0, 0.03f, -100,
       [](double X) { return X < 0 ? 0.1 * X : X; }},
      {"silu", fb::UnaryOp::SILU, 0, 0, 0.027f, -116,
       [&](double X) { return X * Sigmoid(X); }},
  };
  std::vector<int8_t> X(259);
  for (int I = 0; I < 256; ++I)
    X[size_t(I)] = int8_t(I - 128);
  X[256] = -128, X[257] = 0, X[258] = 127;
  for (const Case &C : Cases) {
    INFO(C.Name);
    fb::UnaryOptionsT O;
    O.op = C.Op;
    O.alpha = C.Alpha, O.beta = C.Beta;
    std::string Bytes = bytesOf(int8UnaryModule(O, C.YS, C.YZ));
    for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
      TestSession S(Bytes, K);
      S.run(X.data(), X.size());
      std::vector<int8_t> Y = S.output<int8_t>();
      REQUIRE(Y.size() == 259);
      int Exact = 0, Worst = 0;
      std::set<int> Distinct;
      for (int I = 0; I < 259; ++I) {
        int Want = quantize(C.F((X[size_t(I)] - 3) * 0.05), C.YS, int(C.YZ));
        Worst = std::max(Worst, std::abs(Y[size_t(I)] - Want));
        Exact += Y[size_t(I)] == Want;
        Distinct.insert(Want);
      }
      CHECK(Worst <= 1);
      CHECK(Exact >= 253);
      CHECK(Distinct.size() >= 60); // the table spans the output range
    }
  }
}

TEST_CASE("int8 UNARY tables split over the session's threads give every "
          "element once",
          "[int8]") {
  // 100,005 elements: seven tasks of the threaded lookup, the last one short
  // and not a multiple of eight. Any thread count must give the one-thread
  // result (itself checked against the textbook above) at every position.
  const int64_t N = 100005;
  fb::UnaryOptionsT O;
  O.op = fb::UnaryOp::HARD_SWISH;
  std::string Bytes = bytesOf(int8UnaryModule(O, 0.04f, -60, N));
  std::vector<int8_t> X(static_cast<size_t>(N));
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = int8_t((I * 7919) % 256 - 128);
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    TestSession One(Bytes, K);
    One.run(X.data(), X.size());
    std::vector<int8_t> Want = One.output<int8_t>();
    REQUIRE(Want.size() == X.size());
    for (uint32_t Threads : {2u, 3u, 0u}) {
      INFO("threads " << Threads);
      kiln_session_options Opts = TestSession::options(K);
      Opts.num_threads = Threads;
      TestSession Many;
      Many.open(Bytes, Opts);
      Many.run(X.data(), X.size());
      REQUIRE(Many.output<int8_t>() == Want);
    }
  }
}
