// The executor's plumbing against FakeNnapi.cpp (whose executions copy
// model input 0 into every output): the i8 <-> QUANT8_ASYMM staging, the
// host steps around the model, weights from the mapped file, device
// choice, caching, reusable executions, the debug compilation of
// keep_intermediates, and NNAPI's errors named.
#include "NnapiTestModels.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::nntest;

namespace {

std::string fakeLog(const char *Library = KILN_NNAPI_FAKE) {
  void *H = dlopen(Library, RTLD_NOW);
  REQUIRE(H);
  auto *Log = reinterpret_cast<const char *(*)()>(dlsym(H, "kilnFakeNnapiLog"));
  std::string Text = Log();
  reinterpret_cast<void (*)()>(dlsym(H, "kilnFakeNnapiClear"))();
  dlclose(H);
  return Text;
}

bool logged(const std::string &Log, const std::string &Line) {
  return Log.find(Line + "\n") != std::string::npos;
}

/// A session on the fake library.
struct Run {
  kiln_model *Model = nullptr;
  kiln_session *Session = nullptr;
  kiln_nnapi_options Nn;
  kiln_session_options Opts;

  explicit Run(const char *Library = KILN_NNAPI_FAKE) {
    kiln_nnapi_options_init(&Nn);
    Nn.library = Library;
    kiln_session_options_init(&Opts);
    Opts.nnapi = &Nn;
    fakeLog(Library); // cleared
  }
  ~Run() {
    kiln_session_destroy(Session);
    kiln_model_destroy(Model);
  }
  kiln_status create(const std::string &Bytes, std::string &Error) {
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
    kiln_status S = kiln_session_create(Model, &Opts, &Session);
    Error = S == KILN_OK ? "" : kiln_last_error();
    return S;
  }
  void create(const std::string &Bytes) {
    std::string Error;
    INFO(Error);
    REQUIRE(create(Bytes, Error) == KILN_OK);
  }
  template <typename T> std::vector<T> run(const std::vector<T> &In) {
    REQUIRE(kiln_session_set_input(Session, 0, In.data(),
                                   In.size() * sizeof(T)) == KILN_OK);
    REQUIRE(kiln_session_run(Session) == KILN_OK);
    const void *Data;
    size_t Bytes;
    REQUIRE(kiln_session_get_output(Session, 0, &Data, &Bytes) == KILN_OK);
    const T *P = static_cast<const T *>(Data);
    return std::vector<T>(P, P + Bytes / sizeof(T));
  }
};

void quantize(NnapiModel &M, int32_t T, float Scale, int64_t Zero) {
  auto Q = std::make_unique<fb::QuantParamsT>();
  Q->scale = {Scale};
  Q->zero_point = {Zero};
  M.Model.tensors[size_t(T)]->quant = std::move(Q);
}

/// x i8[1,8] -> RELU (QUANT8_ASYMM operands, zero point 128) -> y i8[1,8].
NnapiModel int8Model() {
  NnapiModel M;
  int32_t X = M.tensor("x", {1, 8}, fb::DType::I8);
  int32_t Y = M.tensor("y", {1, 8}, fb::DType::I8);
  quantize(M, X, 0.5f, 0);
  quantize(M, Y, 0.5f, 0);
  M.op({X}, {Y});
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  for (int32_t T : {X, Y}) {
    uint32_t O = M.operand(nn::TENSOR_QUANT8_ASYMM, {1, 8}, T);
    M.operand(O).scale = 0.5f;
    M.operand(O).zero_point = 128;
  }
  M.operation(nn::RELU, {0}, {1}, 0);
  M.payload().inputs = {0};
  M.payload().outputs = {1};
  return M;
}

/// x f32[1,2,1,2] NCHW -> host TRANSPOSE -> QUANTIZE (0.5, 1) -> NNAPI
/// RELU -> host DEQUANTIZE -> y f32[1,1,2,2].
NnapiModel hostStepsModel() {
  NnapiModel M;
  int32_t X = M.tensor("x", {1, 2, 1, 2}, fb::DType::F32, fb::Layout::NCHW);
  int32_t Xt = M.tensor("xt", {1, 1, 2, 2}, fb::DType::F32, fb::Layout::NHWC);
  int32_t Xq = M.tensor("xq", {1, 1, 2, 2}, fb::DType::I8, fb::Layout::NHWC);
  int32_t Yq = M.tensor("yq", {1, 1, 2, 2}, fb::DType::I8, fb::Layout::NHWC);
  int32_t Y = M.tensor("y", {1, 1, 2, 2}, fb::DType::F32, fb::Layout::NHWC);
  quantize(M, Xq, 0.5f, 1);
  quantize(M, Yq, 0.5f, 1);
  auto Add = [&](fb::OpKind Kind, int32_t In, int32_t Out) {
    auto O = std::make_unique<fb::OperatorT>();
    O->kind = Kind;
    if (Kind == fb::OpKind::TRANSPOSE) {
      fb::TransposeOptionsT T;
      T.perm = {0, 2, 3, 1};
      O->options.Set(std::move(T));
    } else {
      O->options.Set(fb::QuantizeOptionsT());
    }
    O->inputs = {In};
    O->outputs = {Out};
    M.Model.operators.push_back(std::move(O));
  };
  Add(fb::OpKind::TRANSPOSE, X, Xt);
  Add(fb::OpKind::QUANTIZE, Xt, Xq);
  M.op({Xq}, {Yq});
  Add(fb::OpKind::DEQUANTIZE, Yq, Y);
  M.Model.inputs = {X};
  M.Model.outputs = {Y};
  for (int32_t T : {Xq, Yq}) {
    uint32_t O = M.operand(nn::TENSOR_QUANT8_ASYMM, {1, 1, 2, 2}, T);
    M.operand(O).scale = 0.5f;
    M.operand(O).zero_point = 129;
  }
  M.operation(nn::RELU, {0}, {1}, 2);
  M.payload().inputs = {0};
  M.payload().outputs = {1};
  M.payload().host_before = {0, 1};
  M.payload().host_after = {3};
  return M;
}

} // namespace

TEST_CASE("i8 tensors reach NNAPI's QUANT8_ASYMM plus 128 and come back",
          "[nnapi][executor]") {
  Run R;
  R.create(int8Model().bytes());
  std::vector<int8_t> X = {-128, -1, 0, 1, 127, 5, -5, 64};
  REQUIRE(R.run(X) == X);
  REQUIRE(R.run(X) == X);
  std::string Log = fakeLog();
  INFO(Log);
  REQUIRE(logged(Log, "create")); // default devices
  REQUIRE(logged(Log, "preference 1"));
  REQUIRE(logged(Log, "reusable"));
  REQUIRE(logged(Log, "compute"));
  REQUIRE(logged(Log, "in 0")); // -128 plus 128
  REQUIRE(std::string(kiln_session_operator_engine(R.Session, 0)) == "nnapi");
  kiln_engine_info E;
  E.struct_size = sizeof E;
  REQUIRE(kiln_session_engine_info(R.Session, &E) == KILN_OK);
  REQUIRE(std::string(E.target) == "nnapi");
  REQUIRE(std::string(E.device) == "nnapi (default devices)");
  REQUIRE(std::string(E.precision) == "int8");
}

TEST_CASE("the host steps run around the NNAPI model", "[nnapi][executor]") {
  Run R;
  R.Nn.disallow_cpu = 1;
  R.Nn.preference = KILN_NNAPI_PREFER_SUSTAINED_SPEED;
  R.Nn.cache_dir = "/tmp/kiln-nnapi-cache";
  R.create(hostStepsModel().bytes());
  // NCHW [[1, 2], [3, 4]] -> NHWC 1 3 2 4 -> q 3 7 5 9 -> back.
  REQUIRE(R.run(std::vector<float>{1, 2, 3, 4}) ==
          std::vector<float>{1, 3, 2, 4});
  std::string Log = fakeLog();
  INFO(Log);
  REQUIRE(logged(Log, "device fake-npu"));
  REQUIRE(!logged(Log, "device fake-cpu"));
  REQUIRE(logged(Log, "preference 2"));
  REQUIRE(logged(Log, "caching /tmp/kiln-nnapi-cache"));
  const char *Engines[] = {"host", "host", "nnapi", "host"};
  for (size_t Op = 0; Op < 4; ++Op)
    REQUIRE(std::string(kiln_session_operator_engine(R.Session, Op)) ==
            Engines[Op]);
  kiln_engine_info E;
  E.struct_size = sizeof E;
  REQUIRE(kiln_session_engine_info(R.Session, &E) == KILN_OK);
  REQUIRE(std::string(E.device) == "fake-npu");
}

TEST_CASE("disallow_cpu without another device fails", "[nnapi][executor]") {
  Run R;
  R.Nn.disallow_cpu = 1;
  setenv("KILN_FAKE_NNAPI_CPU_ONLY", "1", 1);
  std::string Error;
  kiln_status S = R.create(int8Model().bytes(), Error);
  unsetenv("KILN_FAKE_NNAPI_CPU_ONLY");
  REQUIRE(S == KILN_ERROR_UNSUPPORTED);
  REQUIRE(Error.find("no NNAPI device other than the CPU") !=
          std::string::npos);
}

TEST_CASE("weights come from the mapped file through NNAPI memory",
          "[nnapi][executor]") {
  std::string Bytes = convModel().bytes();
  char Path[] = "/tmp/kiln-nnapi-XXXXXX";
  int Fd = mkstemp(Path);
  REQUIRE(Fd >= 0);
  REQUIRE(write(Fd, Bytes.data(), Bytes.size()) == ssize_t(Bytes.size()));
  close(Fd);
  Run R;
  REQUIRE(kiln_model_load(Path, &R.Model) == KILN_OK);
  std::remove(Path);
  REQUIRE(kiln_session_create(R.Model, &R.Opts, &R.Session) == KILN_OK);
  std::string Log = fakeLog();
  INFO(Log);
  REQUIRE(logged(Log, "createFromFd"));
  REQUIRE(logged(Log, "fromMemory 1"));
  REQUIRE(logged(Log, "fromMemory 2"));
  SECTION("a buffer's weights are used in place") {
    Run B;
    B.create(Bytes);
    REQUIRE(!logged(fakeLog(), "createFromFd"));
  }
}

TEST_CASE("keep_intermediates reads every mapped operation output",
          "[nnapi][executor]") {
  NnapiModel M = int8Model(); // x -> RELU -> a -> RELU -> y
  int32_t A = M.tensor("a", {1, 8}, fb::DType::I8);
  quantize(M, A, 0.5f, 0);
  M.Model.operators[0]->outputs = {A};
  M.op({A}, {1});
  uint32_t Oa = M.operand(nn::TENSOR_QUANT8_ASYMM, {1, 8}, A);
  M.operand(Oa).scale = 0.5f;
  M.operand(Oa).zero_point = 128;
  M.operation(0).outputs = {Oa};
  M.operation(nn::RELU, {Oa}, {1}, 1);
  for (int Keep : {0, 1}) {
    Run R;
    R.Opts.keep_intermediates = uint32_t(Keep);
    R.create(M.bytes());
    std::vector<int8_t> X = {1, 2, 3, 4, -5, 6, 7, 8};
    REQUIRE(R.run(X) == X);
    REQUIRE(logged(fakeLog(), Keep ? "io 1 2" : "io 1 1"));
    if (Keep) {
      kiln_tensor_value V;
      REQUIRE(kiln_session_tensor(R.Session, size_t(A), &V) == KILN_OK);
      const auto *P = static_cast<const int8_t *>(V.data);
      REQUIRE(std::vector<int8_t>(P, P + 8) == X);
    }
  }
}

TEST_CASE("NNAPI's errors name the call and the operation",
          "[nnapi][executor]") {
  NnapiModel M = int8Model();
  M.payload().feature_level = 30;
  M.operation(0).type = nn::HARD_SWISH; // the fake refuses it
  Run R;
  std::string Error;
  REQUIRE(R.create(M.bytes(), Error) == KILN_ERROR_UNSUPPORTED);
  REQUIRE(Error.find("NNAPI ANeuralNetworksModel_addOperation (operation 0, "
                     "HARD_SWISH) failed: BAD_DATA") != std::string::npos);
}

TEST_CASE("an API level 27 library: one execution per run, NNAPI chooses",
          "[nnapi][executor]") {
  Run R(KILN_NNAPI_FAKE27);
  R.Nn.disallow_cpu = 1; // needs level 29: ignored
  R.Nn.cache_dir = "/tmp/kiln-nnapi-cache";
  R.create(int8Model().bytes());
  std::vector<int8_t> X = {-128, -1, 0, 1, 127, 5, -5, 64};
  REQUIRE(R.run(X) == X);
  REQUIRE(R.run(X) == X);
  std::string Log = fakeLog(KILN_NNAPI_FAKE27);
  INFO(Log);
  REQUIRE(logged(Log, "create"));
  REQUIRE(logged(Log, "compute")); // through startCompute
  REQUIRE(!logged(Log, "reusable"));
  REQUIRE(Log.find("caching") == std::string::npos);
  SECTION("a file that needs a later level") {
    NnapiModel M = int8Model();
    M.payload().feature_level = 29;
    Run Later(KILN_NNAPI_FAKE27);
    std::string Error;
    REQUIRE(Later.create(M.bytes(), Error) == KILN_ERROR_UNSUPPORTED);
    REQUIRE(Error.find("the file needs NNAPI feature level 29, and the NNAPI "
                       "library " KILN_NNAPI_FAKE27 " lacks "
                       "ANeuralNetworksModel_relaxComputationFloat32toFloat16 "
                       "(level 28)") != std::string::npos);
  }
}

TEST_CASE("u8 tensors reach QUANT8_ASYMM unchanged", "[nnapi][executor]") {
  NnapiModel M = int8Model();
  for (auto &T : M.Model.tensors) {
    T->dtype = fb::DType::U8;
    T->quant->zero_point = {128};
  }
  Run R;
  R.create(M.bytes());
  std::vector<uint8_t> X = {7, 0, 255, 128, 1, 2, 3, 4};
  REQUIRE(R.run(X) == X);
  REQUIRE(logged(fakeLog(), "in 7"));
}

TEST_CASE("the environment asks for devices and caching",
          "[nnapi][executor]") {
  Run R;
  setenv("KILN_NNAPI_DISALLOW_CPU", "1", 1);
  setenv("KILN_NNAPI_CACHE_DIR", "/tmp/kiln-nnapi-env-cache", 1);
  R.create(int8Model().bytes());
  unsetenv("KILN_NNAPI_DISALLOW_CPU");
  unsetenv("KILN_NNAPI_CACHE_DIR");
  std::string Log = fakeLog();
  INFO(Log);
  REQUIRE(logged(Log, "device fake-npu"));
  REQUIRE(logged(Log, "caching /tmp/kiln-nnapi-env-cache"));
}
