// Int8 operators (schema 1.2) against a textbook computation in double: the
// real values of the int8 input, weights and bias, the float convolution /
// fully connected / add, and the output quantized with round half to even.
// oneDNN's int8 convolution (where the runtime has it), XNNPACK's qc8/qs8
// operators and the reference int8 kernels must all land within one quantum
// of it. The loader rejects bad quantization parameters.
#include "RuntimeTestModels.h"
#include "TestSession.h"
#include "cpu/CpuExecutor.h"
#include "loader/LoadedModel.h"
#include "target/RuntimeTargets.h"
#include "loader/ModelBytes.h"
#include "session/Session.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#ifdef KILN_WITH_ONEDNN
#include "OnednnIsa.h"
#endif

using namespace kiln;
using namespace kiln::testmodels;

namespace {

void setQuant(KilnModule &M, int32_t T, std::vector<float> Scales,
              std::vector<int64_t> Zeros, int32_t Axis) {
  auto Q = std::make_unique<fb::QuantParamsT>();
  Q->scale = std::move(Scales);
  Q->zero_point = std::move(Zeros);
  Q->axis = Axis;
  M.Model.tensors[size_t(T)]->quant = std::move(Q);
}

template <typename T>
int32_t addConst(KilnModule &M, std::string Name, fb::DType D,
                 std::vector<int64_t> Shape, const std::vector<T> &Values,
                 fb::Layout Layout = fb::Layout::PLAIN) {
  int32_t Index = addTensor(M, std::move(Name), D, std::move(Shape), Layout);
  std::vector<uint8_t> Bytes(Values.size() * sizeof(T));
  std::memcpy(Bytes.data(), Values.data(), Bytes.size());
  M.Model.tensors[size_t(Index)]->buffer =
      M.addSegment(Buffer::own(std::move(Bytes)));
  return Index;
}

// x i8 NHWC [1,4,4,2] (scale 0.5, zp 1) -> 3x3 conv, padding 1, 3 output
// channels (per-channel weight scales), relu -> y i8 (scale 0.25, zp -3).
const float XS = 0.5f, YS = 0.25f;
const int64_t XZ = 1, YZ = -3;
const std::vector<float> WS = {0.1f, 0.2f, 0.05f};

std::vector<int8_t> inputValues() {
  std::vector<int8_t> X(32);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = int8_t(int(I * 7 % 23) - 11);
  return X;
}
std::vector<int8_t> weightValues() {
  std::vector<int8_t> W(3 * 3 * 3 * 2);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = int8_t(int(I * 5 % 19) - 9);
  return W;
}
const std::vector<int32_t> BiasValues = {40, -25, 300};

KilnModule int8ConvModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {1, 4, 4, 2}, fb::Layout::NHWC);
  setQuant(M, X, {XS}, {XZ}, -1);
  int32_t W = addConst(M, "w", fb::DType::I8, {3, 3, 3, 2}, weightValues(),
                       fb::Layout::OHWI);
  setQuant(M, W, WS, {}, 0);
  int32_t B = addConst(M, "b", fb::DType::I32, {3}, BiasValues);
  setQuant(M, B, {XS * WS[0], XS * WS[1], XS * WS[2]}, {}, 0);
  int32_t Y = addTensor(M, "y", fb::DType::I8, {1, 4, 4, 3}, fb::Layout::NHWC);
  setQuant(M, Y, {YS}, {YZ}, -1);
  fb::Conv2DOptionsT O;
  O.padding_top = O.padding_left = O.padding_bottom = O.padding_right = 1;
  O.kernel_height = O.kernel_width = 3;
  O.groups = 1;
  O.group_input_channels = 2;
  O.group_output_channels = 3;
  O.output_min = 0; // relu
  addOp(M, fb::OpKind::CONV_2D, {X, W, B}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

/// The textbook result: real arithmetic, then quantize (half to even).
std::vector<int> expectedConv() {
  std::vector<int8_t> X = inputValues(), W = weightValues();
  std::vector<int> Y;
  for (int OY = 0; OY < 4; ++OY)
    for (int OX = 0; OX < 4; ++OX)
      for (int C = 0; C < 3; ++C) {
        double Acc = BiasValues[size_t(C)] * double(XS) * WS[size_t(C)];
        for (int KY = 0; KY < 3; ++KY)
          for (int KX = 0; KX < 3; ++KX) {
            int IY = OY + KY - 1, IX = OX + KX - 1;
            if (IY < 0 || IY >= 4 || IX < 0 || IX >= 4)
              continue;
            for (int I = 0; I < 2; ++I)
              Acc += (X[size_t((IY * 4 + IX) * 2 + I)] - XZ) * double(XS) *
                     W[size_t(((C * 3 + KY) * 3 + KX) * 2 + I)] * WS[size_t(C)];
          }
        Acc = std::max(0.0, Acc); // relu
        double Q = std::nearbyint(Acc / YS) + YZ;
        Y.push_back(int(std::min(127.0, std::max(-128.0, Q))));
      }
  return Y;
}

/// The engine that must run the convolution under K; "" where either
/// oneDNN or XNNPACK may (oneDNN on AVX-VNNI without AVX-512).
std::string convEngine(Kernels K) {
  if (K == Kernels::ReferenceOnly)
    return "reference";
#ifdef KILN_WITH_ONEDNN
  using namespace kiln::testing;
  if (K == Kernels::Default) {
    if (onednnHasAvx512Vnni())
      return "onednn";
    if (onednnHasAvx2Vnni())
      return "";
    // oneDNN would halve the weights (they would land up to 27 quanta off):
    // the session must leave the convolution to XNNPACK.
    WARN("no VNNI in oneDNN's ISA: the default kernels' int8 convolution "
         "must run on XNNPACK");
  }
#endif
  return "xnnpack"; // qc8
}

/// The int8 output of the one-convolution model Bytes on X, run with the
/// kernels K (the convolution on the library K must choose).
std::vector<int> runInt8(const std::string &Bytes, Kernels K,
                         const std::vector<int8_t> &X) {
  TestSession S(Bytes, K);
  const std::string Want = convEngine(K);
  INFO("engine: " << S.engines()[0]);
  if (Want.empty())
    REQUIRE((S.engines()[0] == "onednn" || S.engines()[0] == "xnnpack"));
  else
    REQUIRE(S.engines()[0] == Want);
  S.run(X.data(), X.size());
  std::vector<int8_t> Y = S.output<int8_t>();
  return std::vector<int>(Y.begin(), Y.end());
}

void requireRejected(KilnModule M, const std::string &Text) {
  std::string Error;
  REQUIRE(tryLoad(bytesOf(std::move(M)), Error) == KILN_ERROR_INVALID_MODEL);
  INFO("message: " << Error);
  REQUIRE(Error.find(Text) != std::string::npos);
}

} // namespace

TEST_CASE("qc8 convolution matches real arithmetic within one quantum",
          "[int8]") {
  std::vector<int> Want = expectedConv();
  std::string Bytes = bytesOf(int8ConvModule());
  for (Kernels K :
       {Kernels::Default, Kernels::XnnpackOnly, Kernels::ReferenceOnly}) {
    std::vector<int> Got = runInt8(Bytes, K, inputValues());
    REQUIRE(Got.size() == Want.size());
    int Worst = 0, Positive = 0;
    for (size_t I = 0; I < Got.size(); ++I) {
      Worst = std::max(Worst, std::abs(Got[I] - Want[I]));
      Positive += Want[I] > YZ;
    }
    INFO(kiln::testing::kernelsName(K));
    REQUIRE(Worst <= 1);
    REQUIRE(Positive > 10); // relu leaves a real signal, not all zeros
  }
}

TEST_CASE("an int8 bias without stored scales runs as one with them "
          "(schema 1.8 derives them)", "[int8]") {
  KilnModule M = int8ConvModule();
  int32_t Bias = M.Model.operators[0]->inputs[2];
  REQUIRE(M.Model.tensors[size_t(Bias)]->quant);
  M.Model.tensors[size_t(Bias)]->quant.reset();
  std::string Bytes = bytesOf(std::move(M));
  std::string Stored = bytesOf(int8ConvModule());
  for (Kernels K :
       {Kernels::Default, Kernels::XnnpackOnly, Kernels::ReferenceOnly}) {
    INFO(kiln::testing::kernelsName(K));
    REQUIRE(runInt8(Bytes, K, inputValues()) ==
            runInt8(Stored, K, inputValues()));
  }
  // Stored scales are still checked against input scale x weight scale.
  KilnModule Wrong = int8ConvModule();
  Wrong.Model.tensors[size_t(Bias)]->quant->scale[1] *= 2;
  requireRejected(bytesOf(std::move(Wrong)), KILN_ERROR_INVALID_MODEL,
                  "channel 1 has scale");
}

namespace {

// A pointwise convolution on a 16x16 map, 8 -> 12 channels: small enough
// that, on a CPU with AMX, the runtime picks oneDNN's VNNI kernel over its
// AMX one. x i8 NHWC (scale 0.5, zp 1), per-channel weight scales, bias,
// relu6 -> y i8 (scale 0.05, zp -128).
constexpr int PwSide = 16, PwIn = 8, PwOut = 12;
constexpr float PwYS = 0.05f;
constexpr int64_t PwYZ = -128;

std::vector<int8_t> pointwiseInput() {
  std::vector<int8_t> X(PwSide * PwSide * PwIn);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = int8_t(int(I * 13 % 61) - 30);
  return X;
}
std::vector<int8_t> pointwiseWeights() {
  std::vector<int8_t> W(PwOut * PwIn);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = int8_t(int(I * 7 % 41) - 20);
  return W;
}
float pointwiseScale(int C) { return 0.01f * float(1 + C % 4); }
int32_t pointwiseBias(int C) { return 50 * C - 200; }

KilnModule int8PointwiseModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {1, PwSide, PwSide, PwIn},
                        fb::Layout::NHWC);
  setQuant(M, X, {XS}, {XZ}, -1);
  std::vector<float> Scales, BiasScales;
  std::vector<int32_t> Bias;
  for (int C = 0; C < PwOut; ++C) {
    Scales.push_back(pointwiseScale(C));
    BiasScales.push_back(XS * pointwiseScale(C));
    Bias.push_back(pointwiseBias(C));
  }
  int32_t W = addConst(M, "w", fb::DType::I8, {PwOut, 1, 1, PwIn},
                       pointwiseWeights(), fb::Layout::OHWI);
  setQuant(M, W, Scales, {}, 0);
  int32_t B = addConst(M, "b", fb::DType::I32, {PwOut}, Bias);
  setQuant(M, B, BiasScales, {}, 0);
  int32_t Y = addTensor(M, "y", fb::DType::I8, {1, PwSide, PwSide, PwOut},
                        fb::Layout::NHWC);
  setQuant(M, Y, {PwYS}, {PwYZ}, -1);
  fb::Conv2DOptionsT O;
  O.kernel_height = O.kernel_width = 1;
  O.groups = 1;
  O.group_input_channels = PwIn;
  O.group_output_channels = PwOut;
  O.output_min = 0;
  O.output_max = 6; // relu6
  addOp(M, fb::OpKind::CONV_2D, {X, W, B}, {Y}, O);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  return M;
}

std::vector<int> expectedPointwise() {
  std::vector<int8_t> X = pointwiseInput(), W = pointwiseWeights();
  std::vector<int> Y;
  for (int P = 0; P < PwSide * PwSide; ++P)
    for (int C = 0; C < PwOut; ++C) {
      double Acc = pointwiseBias(C) * double(XS) * pointwiseScale(C);
      for (int I = 0; I < PwIn; ++I)
        Acc += (X[size_t(P * PwIn + I)] - XZ) * double(XS) *
               W[size_t(C * PwIn + I)] * pointwiseScale(C);
      Acc = std::min(6.0, std::max(0.0, Acc));
      double Q = std::nearbyint(Acc / PwYS) + PwYZ;
      Y.push_back(int(std::min(127.0, std::max(-128.0, Q))));
    }
  return Y;
}

} // namespace

TEST_CASE("a small int8 pointwise convolution matches real arithmetic "
          "within one quantum",
          "[int8]") {
  std::vector<int> Want = expectedPointwise();
  std::string Bytes = bytesOf(int8PointwiseModule());
  for (Kernels K :
       {Kernels::Default, Kernels::XnnpackOnly, Kernels::ReferenceOnly}) {
    INFO(kiln::testing::kernelsName(K));
    std::vector<int> Got = runInt8(Bytes, K, pointwiseInput());
    REQUIRE(Got.size() == Want.size());
    int Worst = 0, Inside = 0;
    for (size_t I = 0; I < Got.size(); ++I) {
      Worst = std::max(Worst, std::abs(Got[I] - Want[I]));
      Inside += Want[I] > PwYZ && Want[I] < PwYZ + 120; // neither 0 nor 6
    }
    REQUIRE(Worst <= 1);
    REQUIRE(Inside > int(Got.size()) / 8); // the clamp leaves a real signal
  }
}

namespace {

// x i8 [2, 5] (scale 0.5, zp 1) -> fully connected, 3 outputs (per-channel
// scales), bias -> y i8 (scale 0.25, zp -3) -> ADD y + y -> z i8 (scale 0.5,
// zp 2), relu.
KilnModule int8DenseAddModule() {
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::I8, {2, 5});
  setQuant(M, X, {XS}, {XZ}, -1);
  std::vector<int8_t> W(15);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = int8_t(int(I * 11 % 29) - 14);
  int32_t Wt = addConst(M, "w", fb::DType::I8, {3, 5}, W, fb::Layout::OI);
  setQuant(M, Wt, WS, {}, 0);
  int32_t B = addConst(M, "b", fb::DType::I32, {3}, BiasValues);
  setQuant(M, B, {XS * WS[0], XS * WS[1], XS * WS[2]}, {}, 0);
  int32_t Y = addTensor(M, "y", fb::DType::I8, {2, 3});
  setQuant(M, Y, {YS}, {YZ}, -1);
  int32_t Z = addTensor(M, "z", fb::DType::I8, {2, 3});
  setQuant(M, Z, {0.5f}, {2}, -1);
  addOp(M, fb::OpKind::FULLY_CONNECTED, {X, Wt, B}, {Y},
        fb::FullyConnectedOptionsT());
  fb::BinaryOptionsT Add;
  Add.op = fb::BinaryOp::ADD;
  Add.output_min = 0;
  addOp(M, fb::OpKind::BINARY, {Y, Y}, {Z}, Add);
  M.Model.inputs = {X};
  M.Model.outputs = {Z};
  return M;
}

int quantize(double V, double Scale, int Zero) {
  return int(std::min(127.0, std::max(-128.0, std::nearbyint(V / Scale) + Zero)));
}

} // namespace

TEST_CASE("qc8 fully connected and qs8 add match real arithmetic",
          "[int8]") {
  std::vector<int8_t> X = inputValues();
  X.resize(10);
  std::vector<int> Want;
  for (int R = 0; R < 2; ++R)
    for (int C = 0; C < 3; ++C) {
      double Acc = BiasValues[size_t(C)] * double(XS) * WS[size_t(C)];
      for (int K = 0; K < 5; ++K)
        Acc += (X[size_t(R * 5 + K)] - XZ) * double(XS) *
               int8_t(int((C * 5 + K) * 11 % 29) - 14) * WS[size_t(C)];
      int Yq = quantize(Acc, YS, int(YZ)); // y, then z = relu(y + y)
      double Y = (Yq - YZ) * double(YS);
      Want.push_back(quantize(std::max(0.0, 2 * Y), 0.5, 2));
    }
  // Not a degenerate case: relu clamps some, the rest spread out.
  REQUIRE(std::set<int>(Want.begin(), Want.end()).size() >= 3);
  std::string Bytes = bytesOf(int8DenseAddModule());
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    TestSession S(Bytes, K);
    std::string Want8 = K == Kernels::ReferenceOnly ? "reference" : "xnnpack";
    REQUIRE(S.engines() == std::vector<std::string>{Want8, Want8});
    S.run(X.data(), X.size());
    std::vector<int8_t> Y = S.output<int8_t>();
    REQUIRE(Y.size() == Want.size());
    INFO(Want8);
    for (size_t I = 0; I < Y.size(); ++I)
      REQUIRE(std::abs(Y[I] - Want[I]) <= 1);
  }
}

TEST_CASE("quantize, int8 max pool, global average pool and dequantize "
          "match real arithmetic", "[int8]") {
  // x f32 NHWC [1,4,4,3] -> QUANTIZE (scale 0.1, zp -5) -> MAX_POOL 2x2/2 ->
  // GLOBAL_AVERAGE_POOL (to scale 0.05, zp 3) -> DEQUANTIZE -> y f32 [1,1,1,3]
  KilnModule M;
  int32_t X = addTensor(M, "x", fb::DType::F32, {1, 4, 4, 3}, fb::Layout::NHWC);
  int32_t Q = addTensor(M, "q", fb::DType::I8, {1, 4, 4, 3}, fb::Layout::NHWC);
  setQuant(M, Q, {0.1f}, {-5}, -1);
  int32_t P = addTensor(M, "p", fb::DType::I8, {1, 2, 2, 3}, fb::Layout::NHWC);
  setQuant(M, P, {0.1f}, {-5}, -1);
  int32_t G = addTensor(M, "g", fb::DType::I8, {1, 1, 1, 3}, fb::Layout::NHWC);
  setQuant(M, G, {0.05f}, {3}, -1);
  int32_t Y = addTensor(M, "y", fb::DType::F32, {1, 1, 1, 3}, fb::Layout::NHWC);
  addOp(M, fb::OpKind::QUANTIZE, {X}, {Q}, fb::QuantizeOptionsT());
  fb::Pool2DOptionsT Pool;
  Pool.kernel_height = Pool.kernel_width = 2;
  Pool.stride_height = Pool.stride_width = 2;
  addOp(M, fb::OpKind::MAX_POOL_2D, {Q}, {P}, Pool);
  addOp(M, fb::OpKind::GLOBAL_AVERAGE_POOL_2D, {P}, {G}, fb::Pool2DOptionsT());
  addOp(M, fb::OpKind::DEQUANTIZE, {G}, {Y}, fb::QuantizeOptionsT());
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  std::vector<float> In(48);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(int(I * 13 % 31) - 15) * 0.37f;
  // Textbook: quantize, max over each 2x2 window, average, requantize.
  std::vector<double> Want;
  for (int C = 0; C < 3; ++C) {
    double Sum = 0;
    for (int WY = 0; WY < 2; ++WY)
      for (int WX = 0; WX < 2; ++WX) {
        int Best = -128;
        for (int DY = 0; DY < 2; ++DY)
          for (int DX = 0; DX < 2; ++DX)
            Best = std::max(Best, quantize(In[size_t(((WY * 2 + DY) * 4 + WX * 2 + DX) * 3 + C)], 0.1, -5));
        Sum += (Best + 5) * 0.1;
      }
    Want.push_back((quantize(Sum / 4, 0.05, 3) - 3) * 0.05);
  }
  std::string Bytes = bytesOf(std::move(M));
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    TestSession S(Bytes, K);
    std::string Want4 = K == Kernels::ReferenceOnly ? "reference" : "xnnpack";
    REQUIRE(S.engines() == std::vector<std::string>(4, Want4));
    S.run(In.data(), In.size() * 4);
    std::vector<float> Got = S.output<float>();
    REQUIRE(Got.size() == 3);
    INFO(Want4);
    for (size_t C = 0; C < 3; ++C)
      REQUIRE(std::fabs(Got[C] - Want[C]) <= 0.05 + 1e-6);
  }
}

TEST_CASE("bad quantization parameters are rejected", "[int8][loader]") {
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[0]->quant->scale = {0.0f};
    requireRejected(std::move(M), "scale 0 is 0, expected a finite value > 0");
  }
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[0]->quant->scale = {std::nanf("")};
    requireRejected(std::move(M), "expected a finite value > 0");
  }
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[0]->quant->scale = {-0.5f};
    requireRejected(std::move(M), "expected a finite value > 0");
  }
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[0]->quant->zero_point = {200};
    requireRejected(std::move(M), "zero point 0 is 200, outside [-128, 127]");
  }
  {
    KilnModule M = int8ConvModule(); // weight: 3 channels, 2 scales
    M.Model.tensors[1]->quant->scale = {0.1f, 0.2f};
    requireRejected(std::move(M), "2 scales, expected 3");
  }
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[1]->quant->axis = 4;
    requireRejected(std::move(M), "quantization axis 4 is out of range");
  }
  {
    KilnModule M = int8ConvModule();
    M.Model.tensors[0]->quant->zero_point = {1, 2};
    requireRejected(std::move(M), "1 scales but 2 zero points");
  }
  {
    KilnModule M = int8ConvModule(); // a bias of the wrong scale
    M.Model.tensors[2]->quant->scale = {1.0f, 1.0f, 1.0f};
    requireRejected(std::move(M), "(input scale x weight scale)");
  }
  {
    KilnModule M = int8ConvModule(); // weights with a zero point
    M.Model.tensors[1]->quant->zero_point = {0, 3, 0};
    requireRejected(std::move(M), "zero point 3, expected 0 (symmetric)");
  }
  {
    KilnModule M = int8ConvModule(); // the output without parameters
    M.Model.tensors[3]->quant.reset();
    requireRejected(std::move(M), "needs per-tensor quantization parameters");
  }
  {
    KilnModule M = convModule(); // quantization on an f32 tensor
    setQuant(M, 0, {1.0f}, {0}, -1);
    requireRejected(std::move(M), "quantization parameters on a f32 tensor");
  }
}

TEST_CASE("a resized session keeps its qc8 convolution and computes every "
          "sample of the new batch",
          "[int8][resize]") {
  // int8ConvModule with its batch open; XNNPACK (2 threads) runs it.
  KilnModule M = int8ConvModule();
  for (int32_t T : {M.Model.inputs[0], M.Model.outputs[0]}) {
    fb::TensorT &Tensor = *M.Model.tensors[size_t(T)];
    Tensor.shape[0] = -1;
    auto D = std::make_unique<fb::SymbolicDimT>();
    D->axis = 0;
    D->symbol = 0;
    D->factor = 1;
    Tensor.symbolic_dims.push_back(std::move(D));
  }
  M.Model.symbols = {"N"};
  std::string Bytes = bytesOf(std::move(M));
  std::shared_ptr<const rt::LoadedModel> Model;
  REQUIRE(rt::loadVerifiedModel(rt::ModelBytes::borrow(Bytes.data(), Bytes.size()),
                                Model)
              .isOk());
  rt::SessionOptions Opts;
  Opts.Threads = 2;
  std::unique_ptr<rt::Session> S;
  REQUIRE(rt::Session::create(Model, Opts, S).isOk());
  REQUIRE(std::string(S->engine(0)) == "xnnpack");
  std::vector<int> Want = expectedConv();
  for (int64_t N : {3, 1, 4}) {
    INFO("batch " << N);
    REQUIRE(S->resizeInputs({{N, 4, 4, 2}}).isOk());
    REQUIRE(static_cast<const rt::CpuExecutor &>(S->executor()).keptKernels() == 1);
    std::vector<int8_t> X;
    for (int64_t B = 0; B < N; ++B) {
      std::vector<int8_t> One = inputValues();
      X.insert(X.end(), One.begin(), One.end());
    }
    REQUIRE(S->setInput(0, X.data(), X.size()).isOk());
    REQUIRE(S->run().isOk());
    const void *Data = nullptr;
    size_t OutBytes = 0;
    REQUIRE(S->output(0, &Data, &OutBytes).isOk());
    REQUIRE(OutBytes == size_t(N) * Want.size());
    const int8_t *Y = static_cast<const int8_t *>(Data);
    for (size_t I = 0; I < OutBytes; ++I)
      REQUIRE(std::abs(Y[I] - Want[I % Want.size()]) <= 1);
  }
}
