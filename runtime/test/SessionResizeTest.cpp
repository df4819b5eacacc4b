// Batch-polymorphic files (schema 1.9): a session sized at creation, resized
// up, down and back, against a naive convolution of each sample; the same
// size costs nothing; limits, bad shapes and static files are refused with
// the session unchanged.
#include "RuntimeTestModels.h"
#include "TestSession.h"
#include "cpu/CpuExecutor.h"
#include "loader/LoadedModel.h"
#include "target/RuntimeTargets.h"
#include "loader/ModelBytes.h"
#include "session/Session.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

/// convModule ([1,4,4,2] -> [1,4,4,3], 3x3, padding 1) with its batch open.
std::string polymorphicConv() {
  KilnModule M = convModule();
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
  return bytesOf(std::move(M));
}

/// The values convModule computes, by the definition (OHWI weights).
std::vector<float> naiveConv(const std::vector<float> &X, int64_t N) {
  std::vector<float> Y(size_t(N) * 4 * 4 * 3);
  const float Bias[3] = {0.5f, -0.5f, 0.25f};
  for (int64_t B = 0; B < N; ++B)
    for (int64_t H = 0; H < 4; ++H)
      for (int64_t W = 0; W < 4; ++W)
        for (int64_t O = 0; O < 3; ++O) {
          double Sum = Bias[O];
          for (int64_t KH = 0; KH < 3; ++KH)
            for (int64_t KW = 0; KW < 3; ++KW)
              for (int64_t C = 0; C < 2; ++C) {
                int64_t IH = H + KH - 1, IW = W + KW - 1;
                if (IH < 0 || IH >= 4 || IW < 0 || IW >= 4)
                  continue;
                int64_t WI = ((O * 3 + KH) * 3 + KW) * 2 + C;
                float Weight = float(int(WI % 7) - 3) * 0.25f;
                Sum += double(X[size_t(((B * 4 + IH) * 4 + IW) * 2 + C)]) *
                       Weight;
              }
          Y[size_t(((B * 4 + H) * 4 + W) * 3 + O)] = float(Sum);
        }
  return Y;
}

std::vector<float> samples(int64_t N, float Seed) {
  std::vector<float> X(size_t(N) * 4 * 4 * 2);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = std::sin(float(I) * 0.37f + Seed);
  return X;
}

kiln_status resize(kiln_session *S, int64_t N) {
  int64_t Dims[4] = {N, 4, 4, 2};
  const int64_t *Shapes[1] = {Dims};
  return kiln_session_resize_inputs(S, 1, Shapes);
}

size_t inputBytes(kiln_session *S) {
  kiln_tensor_info I;
  REQUIRE(kiln_session_input_info(S, 0, &I) == KILN_OK);
  return I.byte_size;
}

void requireConvAt(TestSession &T, int64_t N, float Seed) {
  std::vector<float> X = samples(N, Seed);
  REQUIRE(inputBytes(T.Session) == X.size() * sizeof(float));
  T.run(X.data(), X.size() * sizeof(float));
  kiln_tensor_info Out;
  REQUIRE(kiln_session_output_info(T.Session, 0, &Out) == KILN_OK);
  REQUIRE(Out.rank == 4);
  REQUIRE(Out.shape[0] == N);
  std::vector<float> Got = T.output<float>(0), Want = naiveConv(X, N);
  REQUIRE(Got.size() == Want.size());
  for (size_t I = 0; I < Want.size(); ++I)
    REQUIRE(std::fabs(Got[I] - Want[I]) <= 1e-5f);
}

} // namespace

TEST_CASE("a polymorphic model shows its open dims and sizes sessions at 1",
          "[resize]") {
  TestSession T(polymorphicConv());
  kiln_tensor_info In;
  REQUIRE(kiln_model_input_info(T.Model, 0, &In) == KILN_OK);
  REQUIRE(std::vector<int64_t>(In.shape, In.shape + In.rank) ==
          std::vector<int64_t>{-1, 4, 4, 2});
  REQUIRE(In.byte_size == 0);
  REQUIRE(inputBytes(T.Session) == 4 * 4 * 2 * sizeof(float));
  requireConvAt(T, 1, 0.0f);
}

TEST_CASE("a session resized up, down and back computes every sample",
          "[resize]") {
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    TestSession T(polymorphicConv(), K);
    for (int64_t N : {1, 7, 2, 7, 1}) {
      REQUIRE(resize(T.Session, N) == KILN_OK);
      requireConvAt(T, N, float(N));
    }
  }
}

TEST_CASE("a resize to the same size keeps the session as it is",
          "[resize]") {
  TestSession T(polymorphicConv());
  REQUIRE(resize(T.Session, 3) == KILN_OK);
  std::vector<float> X = samples(3, 1.0f);
  T.run(X.data(), X.size() * sizeof(float));
  size_t Arena = kiln_session_arena_bytes(T.Session);
  // The inputs set before are still there: nothing was rebuilt.
  REQUIRE(resize(T.Session, 3) == KILN_OK);
  REQUIRE(kiln_session_run(T.Session) == KILN_OK);
  REQUIRE(kiln_session_arena_bytes(T.Session) == Arena);
  // A real change needs the inputs again.
  REQUIRE(resize(T.Session, 4) == KILN_OK);
  REQUIRE(kiln_session_run(T.Session) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()).find("was not set") !=
          std::string::npos);
  REQUIRE(kiln_session_arena_bytes(T.Session) > Arena);
}

TEST_CASE("the input_shapes option sizes the session when it is created",
          "[resize]") {
  kiln_session_options O = TestSession::options(Kernels::Default);
  int64_t Dims[4] = {5, 4, 4, 2};
  const int64_t *Shapes[1] = {Dims};
  O.input_shapes = Shapes;
  O.num_input_shapes = 1;
  TestSession T;
  T.open(polymorphicConv(), O);
  requireConvAt(T, 5, 2.0f);
}

TEST_CASE("a resize over max_arena_bytes is refused and changes nothing",
          "[resize]") {
  TestSession Probe(polymorphicConv());
  REQUIRE(resize(Probe.Session, 2) == KILN_OK);
  size_t AtTwo = kiln_session_arena_bytes(Probe.Session) +
                 kiln_session_scratch_bytes(Probe.Session);

  kiln_session_options O = TestSession::options(Kernels::Default);
  O.max_arena_bytes = AtTwo;
  TestSession T;
  T.open(polymorphicConv(), O);
  REQUIRE(resize(T.Session, 2) == KILN_OK);
  std::vector<float> X = samples(2, 3.0f);
  T.run(X.data(), X.size() * sizeof(float));
  REQUIRE(resize(T.Session, 64) == KILN_ERROR_OUT_OF_MEMORY);
  // Still sized for 2, inputs still set.
  REQUIRE(inputBytes(T.Session) == X.size() * sizeof(float));
  REQUIRE(kiln_session_run(T.Session) == KILN_OK);
  requireConvAt(T, 2, 3.0f);
}

TEST_CASE("a resize past the loader's tensor size limit is refused by "
          "tensor, and changes nothing",
          "[resize]") {
  TestSession T(polymorphicConv());
  REQUIRE(resize(T.Session, 2) == KILN_OK);
  std::vector<float> X = samples(2, 5.0f);
  T.run(X.data(), X.size() * sizeof(float));
  // 2^36 samples of 128 bytes: 2^43 bytes, past the 2^40 of
  // limits::MaxTensorBytes; and a size whose bytes overflow int64.
  for (int64_t N : {int64_t(1) << 36, int64_t(1) << 62}) {
    kiln_status St = resize(T.Session, N);
    INFO(kiln_last_error());
    REQUIRE(St == KILN_ERROR_INVALID_ARGUMENT); // the shapes asked for
    std::string Error = kiln_last_error();
    REQUIRE(Error.find("'x'") != std::string::npos);
    REQUIRE(Error.find("too large") != std::string::npos);
  }
  REQUIRE(inputBytes(T.Session) == X.size() * sizeof(float));
  REQUIRE(kiln_session_run(T.Session) == KILN_OK);
  requireConvAt(T, 2, 5.0f);
}

TEST_CASE("shapes that do not fit are refused by input and dim", "[resize]") {
  TestSession T(polymorphicConv());
  int64_t Wrong[4] = {2, 4, 5, 2};
  const int64_t *Shapes[1] = {Wrong};
  REQUIRE(kiln_session_resize_inputs(T.Session, 1, Shapes) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "input 0 'x' has the static dim 2 = 4, got 5");
  REQUIRE(resize(T.Session, 0) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "input 0 'x' dim 0 is 0; it is 1 x 'N' (at least 1)");
  REQUIRE(kiln_session_resize_inputs(T.Session, 2, Shapes) ==
          KILN_ERROR_INVALID_ARGUMENT);
  requireConvAt(T, 1, 4.0f);
}

TEST_CASE("a static model takes only its own shapes", "[resize]") {
  TestSession T(bytesOf(convModule()));
  REQUIRE(resize(T.Session, 1) == KILN_OK);
  REQUIRE(resize(T.Session, 2) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "input 0 'x' has the static dim 0 = 1, got 2 (the model is not "
          "batch-polymorphic)");
  requireConvAt(T, 1, 5.0f);
}

TEST_CASE("malformed symbolic dims are refused at load", "[resize]") {
  auto Mutated = [](auto Edit) {
    KilnModule M = convModule();
    for (int32_t T : {M.Model.inputs[0], M.Model.outputs[0]}) {
      fb::TensorT &Tensor = *M.Model.tensors[size_t(T)];
      Tensor.shape[0] = -1;
      auto D = std::make_unique<fb::SymbolicDimT>();
      Tensor.symbolic_dims.push_back(std::move(D));
    }
    M.Model.symbols = {"N"};
    Edit(M);
    std::string Error;
    REQUIRE(tryLoad(bytesOf(std::move(M)), Error) ==
            KILN_ERROR_INVALID_MODEL);
    return Error;
  };
  auto Input = [](KilnModule &M) -> fb::TensorT & {
    return *M.Model.tensors[size_t(M.Model.inputs[0])];
  };
  REQUIRE(Mutated([&](KilnModule &M) { Input(M).symbolic_dims[0]->axis = 4; }) ==
          "tensor 0 'x': symbolic dim 0 has axis 4 (axes increase, below the "
          "rank 4)");
  REQUIRE(Mutated([&](KilnModule &M) {
            Input(M).symbolic_dims[0]->symbol = 1;
          }) == "tensor 0 'x': symbolic dim 0 names symbol 1 of 1");
  REQUIRE(Mutated([&](KilnModule &M) {
            Input(M).symbolic_dims[0]->factor = 0;
          }) == "tensor 0 'x': symbolic dim 0 has the factor 0");
  REQUIRE(Mutated([&](KilnModule &M) { Input(M).shape[0] = 1; }) ==
          "tensor 0 'x': symbolic dim 0: dim 0 is 1, not -1");
  REQUIRE(Mutated([&](KilnModule &M) { Input(M).symbolic_dims.clear(); }) ==
          "tensor 0 'x' has a negative dim -1");
  REQUIRE(Mutated([&](KilnModule &M) { M.Model.symbols = {"N", "N"}; }) ==
          "symbol names must be non-empty and distinct ('N')");
  REQUIRE(Mutated([&](KilnModule &M) {
            M.Model.symbols.push_back("H");
          }) == "symbol 'H' is in no graph input's shape");
  REQUIRE(Mutated([&](KilnModule &M) {
            M.Model.tensors[2]->symbolic_dims.push_back(
                std::make_unique<fb::SymbolicDimT>());
            M.Model.tensors[2]->shape[0] = -1;
          }) == "tensor 2 'b': a constant with symbolic dims");
}

TEST_CASE("a resized session keeps its XNNPACK convolution, packed weights "
          "and all, and sets it up for the new batch",
          "[resize]") {
  std::string Bytes = polymorphicConv();
  std::shared_ptr<const rt::LoadedModel> Model;
  rt::Status Loaded = rt::loadVerifiedModel(
      rt::ModelBytes::borrow(Bytes.data(), Bytes.size()), Model);
  REQUIRE(Loaded.isOk());
  rt::SessionOptions Opts;
  Opts.Threads = 2; // XNNPACK (oneDNN takes single-threaded sessions only)
  std::unique_ptr<rt::Session> S;
  REQUIRE(rt::Session::create(Model, Opts, S).isOk());
  auto Kept = [&] {
    return static_cast<const rt::CpuExecutor &>(S->executor()).keptKernels();
  };
  auto RunAt = [&](int64_t N, float Seed) {
    INFO("batch " << N);
    rt::Status Resized = S->resizeInputs({{N, 4, 4, 2}});
    INFO(Resized.message());
    REQUIRE(Resized.isOk());
    std::vector<float> X = samples(N, Seed);
    REQUIRE(S->setInput(0, X.data(), X.size() * sizeof(float)).isOk());
    REQUIRE(S->run().isOk());
    const void *Data = nullptr;
    size_t OutBytes = 0;
    REQUIRE(S->output(0, &Data, &OutBytes).isOk());
    std::vector<float> Want = naiveConv(X, N);
    REQUIRE(OutBytes == Want.size() * sizeof(float));
    const float *Got = static_cast<const float *>(Data);
    for (size_t I = 0; I < Want.size(); ++I)
      REQUIRE(std::fabs(Got[I] - Want[I]) <= 1e-5f);
  };
  REQUIRE(std::string(S->engine(0)) == "xnnpack");
  REQUIRE(Kept() == 0);
  RunAt(5, 1.0f);
  REQUIRE(std::string(S->engine(0)) == "xnnpack");
  REQUIRE(Kept() == 1); // the convolution, taken from the batch-1 executor
  RunAt(2, 2.0f);
  REQUIRE(Kept() == 1);
  RunAt(9, 3.0f);
  RunAt(1, 4.0f);
  REQUIRE(Kept() == 1);
  // A resize refused (its activations over max_arena_bytes) takes nothing
  // from the running executor: it still runs at batch 1.
  REQUIRE(S->arenaBytes() > 0);
  S.reset();
  rt::SessionOptions Capped = Opts;
  Capped.MaxArenaBytes = 4096;
  REQUIRE(rt::Session::create(Model, Capped, S).isOk());
  REQUIRE(S->resizeInputs({{1000, 4, 4, 2}}).code() == KILN_ERROR_OUT_OF_MEMORY);
  REQUIRE(Kept() == 0);
  RunAt(1, 6.0f);
}
