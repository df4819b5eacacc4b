// The C API: loading from a file and a buffer, I/O descriptions, metadata,
// running with hand-computed results, and argument errors with their
// messages.
#include "RuntimeTestModels.h"
#include "TestSession.h"

#include "Support/FileSystem.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <catch2/catch.hpp>

#include <cstring>

#include <cstddef>
#include <thread>

using namespace kiln;
using namespace kiln::testmodels;

namespace {

Kernels kernels(bool Reference) {
  return Reference ? Kernels::ReferenceOnly : Kernels::Default;
}

} // namespace

TEST_CASE("a model runs and gives hand-computed values", "[capi]") {
  for (bool Reference : {false, true}) {
    TestSession L(bytesOf(addMulModule()), kernels(Reference));
    // z = max((x + [1,2,3]) * 2, 0)
    float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
    REQUIRE(kiln_session_set_input(L.Session, 0, X, sizeof X) == KILN_OK);
    REQUIRE(kiln_session_run(L.Session) == KILN_OK);
    REQUIRE(L.output<float>(0) ==
            std::vector<float>{2, 6, 0, 7, 2, 7});
    // A second run reuses the inputs.
    REQUIRE(kiln_session_run(L.Session) == KILN_OK);
    REQUIRE(L.output<float>(0)[1] == 6);
  }
}

TEST_CASE("an input filled in the session's own bytes runs without a copy",
          "[capi]") {
  for (Kernels K : {Kernels::Default, Kernels::ReferenceOnly}) {
    INFO(kiln::testing::kernelsName(K));
    TestSession L(bytesOf(addMulModule()), K);
    void *Data = nullptr;
    size_t Bytes = 0;
    REQUIRE(kiln_session_input_buffer(L.Session, 0, &Data, &Bytes) == KILN_OK);
    REQUIRE(Bytes == 6 * sizeof(float));
    // z = max((x + [1,2,3]) * 2, 0)
    const float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
    std::memcpy(Data, X, sizeof X);
    REQUIRE(kiln_session_run(L.Session) == KILN_OK);
    CHECK(L.output<float>(0) == std::vector<float>{2, 6, 0, 7, 2, 7});
    // The bytes stay the input's: changed in place, the next run sees them.
    static_cast<float *>(Data)[0] = 3;
    REQUIRE(kiln_session_run(L.Session) == KILN_OK);
    CHECK(L.output<float>(0)[0] == 8);
    // set_input writes the same bytes.
    const float Y[6] = {1, 1, 1, 1, 1, 1};
    REQUIRE(kiln_session_set_input(L.Session, 0, Y, sizeof Y) == KILN_OK);
    CHECK(static_cast<const float *>(Data)[5] == 1);
    CHECK(kiln_session_input_buffer(L.Session, 1, &Data, &Bytes) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(kiln_last_error()).find("out of range") !=
          std::string::npos);
    CHECK(kiln_session_input_buffer(L.Session, 0, nullptr, &Bytes) ==
          KILN_ERROR_INVALID_ARGUMENT);
  }
  // Before the buffer is asked for, the input is not set.
  TestSession Unset(bytesOf(addMulModule()));
  CHECK(kiln_session_run(Unset.Session) == KILN_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("oneDNN, XNNPACK and the reference kernels agree on a "
          "convolution",
          "[capi]") {
  // Default engines (oneDNN where the runtime has it), XNNPACK only, and
  // the reference kernels.
  std::string Bytes = bytesOf(convModule());
  TestSession D(Bytes), X(Bytes, Kernels::XnnpackOnly),
      R(Bytes, Kernels::ReferenceOnly);
  kiln_operator_info Info;
  REQUIRE(kiln_session_operator_info(D.Session, 0, &Info) == KILN_OK);
  REQUIRE(std::string(Info.kind) == "CONV_2D");
#ifdef KILN_WITH_ONEDNN
  REQUIRE(std::string(kiln_session_operator_engine(D.Session, 0)) == "onednn");
  REQUIRE(Info.uses_xnnpack == 0);
#else
  REQUIRE(std::string(kiln_session_operator_engine(D.Session, 0)) == "xnnpack");
#endif
  REQUIRE(kiln_session_operator_info(X.Session, 0, &Info) == KILN_OK);
  REQUIRE(Info.uses_xnnpack == 1);
  REQUIRE(std::string(kiln_session_operator_engine(X.Session, 0)) == "xnnpack");
  REQUIRE(kiln_session_operator_info(R.Session, 0, &Info) == KILN_OK);
  REQUIRE(Info.uses_xnnpack == 0);
  REQUIRE(std::string(kiln_session_operator_engine(R.Session, 0)) ==
          "reference");
  REQUIRE(kiln_session_operator_engine(R.Session, 1) == nullptr);
  // A session with more threads runs on XNNPACK's pool, never oneDNN
  // (whose OpenMP threads would fight the pool's for the cores).
  TestSession Two;
  kiln_session_options TwoThreads = TestSession::options(Kernels::Default);
  TwoThreads.num_threads = 2;
  Two.open(Bytes, TwoThreads);
  REQUIRE(Two.engines() == std::vector<std::string>{"xnnpack"});
  std::vector<float> In(32);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(I % 5) - 2.0f;
  for (TestSession *L : {&D, &X, &R}) {
    REQUIRE(kiln_session_set_input(L->Session, 0, In.data(), 128) == KILN_OK);
    REQUIRE(kiln_session_run(L->Session) == KILN_OK);
  }
  std::vector<float> B = R.output<float>(0);
  REQUIRE(B.size() == 48);
  for (TestSession *L : {&D, &X}) {
    std::vector<float> A = L->output<float>(0);
    REQUIRE(A.size() == 48);
    for (size_t I = 0; I < A.size(); ++I)
      REQUIRE(A[I] == Approx(B[I]).margin(1e-5));
  }
  // Output pixel (0,0), channel 0, computed by hand from the weights
  // w[o][ky][kx][i] = ((o*18 + ky*6 + kx*2 + i) % 7 - 3) / 4 over the 2x2
  // window that the padding leaves.
  double Want = 0.5;
  for (int KY = 1; KY < 3; ++KY)
    for (int KX = 1; KX < 3; ++KX)
      for (int Ic = 0; Ic < 2; ++Ic) {
        int Pixel = ((KY - 1) * 4 + (KX - 1)) * 2 + Ic;
        double W = double((KY * 6 + KX * 2 + Ic) % 7 - 3) * 0.25;
        Want += W * (double(Pixel % 5) - 2.0);
      }
  REQUIRE(B[0] == Approx(Want).margin(1e-6));
}

TEST_CASE("options of a caller built before disable_onednn are accepted",
          "[capi]") {
  kiln_session_options O = TestSession::options(Kernels::Default);
  O.disable_onednn = 1; // beyond the old struct: not read
  O.struct_size = offsetof(kiln_session_options, disable_onednn);
  TestSession L;
  L.open(bytesOf(convModule()), O);
#ifdef KILN_WITH_ONEDNN
  REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) == "onednn");
#else
  REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) == "xnnpack");
#endif
}

TEST_CASE("options of a caller built before huge_page_weights are accepted",
          "[capi]") {
  kiln_session_options O = TestSession::options(Kernels::Default);
  O.disable_onednn = 1; // inside the old struct: read
  O.struct_size = offsetof(kiln_session_options, huge_page_weights);
  TestSession L;
  L.open(bytesOf(convModule()), O);
  REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) == "xnnpack");
}

TEST_CASE("the CPU executor's options come in kiln_cpu_options", "[capi]") {
  kiln_session_options O = TestSession::options(Kernels::Default);
  kiln_cpu_options Cpu;
  kiln_cpu_options_init(&Cpu);
  REQUIRE(Cpu.struct_size == sizeof(kiln_cpu_options));
  REQUIRE(Cpu.force_reference == 0);
  REQUIRE(Cpu.disable_onednn == 0);
  REQUIRE(Cpu.huge_page_weights == 0);
  O.cpu = &Cpu;
  SECTION("disable_onednn") {
    Cpu.disable_onednn = 1;
    TestSession L;
    L.open(bytesOf(convModule()), O);
    REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) ==
            "xnnpack");
  }
  SECTION("force_reference") {
    Cpu.force_reference = 1;
    TestSession L;
    L.open(bytesOf(convModule()), O);
    REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) ==
            "reference");
  }
  SECTION("a caller built before the cpu field: its CPU fields still work") {
    O.cpu = nullptr;
    O.force_reference = 1;
    O.struct_size = offsetof(kiln_session_options, cpu);
    TestSession L;
    L.open(bytesOf(convModule()), O);
    REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) ==
            "reference");
  }
  SECTION("a caller built before the vulkan field: its cpu options work") {
    Cpu.force_reference = 1;
    O.struct_size = offsetof(kiln_session_options, vulkan);
    // Past the caller's struct: never read.
    O.vulkan = reinterpret_cast<const kiln_vulkan_options *>(uintptr_t(1));
    TestSession L;
    L.open(bytesOf(convModule()), O);
    REQUIRE(std::string(kiln_session_operator_engine(L.Session, 0)) ==
            "reference");
  }
  SECTION("uninitialized cpu options are refused") {
    Cpu.struct_size = 0;
    std::string Bytes = bytesOf(convModule());
    kiln_model *Model = nullptr;
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
    kiln_session *Session = nullptr;
    REQUIRE(kiln_session_create(Model, &O, &Session) ==
            KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(Session == nullptr);
    REQUIRE_THAT(kiln_last_error(),
                 Catch::Contains("cpu options not initialized"));
    kiln_model_destroy(Model);
  }
}

TEST_CASE("inputs, outputs and metadata are described", "[capi]") {
  KilnModule M = addMulModule();
  auto MD = std::make_unique<fb::MetadataT>();
  MD->target = "cpu";
  MD->source_hash = "0123456789abcdef";
  M.Model.metadata = std::move(MD);
  TestSession L(bytesOf(std::move(M)));
  REQUIRE(kiln_model_num_inputs(L.Model) == 1);
  REQUIRE(kiln_model_num_outputs(L.Model) == 1);
  kiln_tensor_info I;
  REQUIRE(kiln_model_input_info(L.Model, 0, &I) == KILN_OK);
  REQUIRE(std::string(I.name) == "x");
  REQUIRE(I.dtype == KILN_DTYPE_F32);
  REQUIRE(I.rank == 2);
  REQUIRE(I.shape[0] == 2);
  REQUIRE(I.shape[1] == 3);
  REQUIRE(I.byte_size == 24);
  REQUIRE(std::string(kiln_model_metadata(L.Model, "target")) == "cpu");
  REQUIRE(std::string(kiln_model_metadata(L.Model, "source_hash")) ==
          "0123456789abcdef");
  REQUIRE(kiln_model_metadata(L.Model, "no such key") == nullptr);
  uint32_t Major = 0, Minor = 99;
  kiln_schema_version(&Major, &Minor);
  REQUIRE(Major == 1);
  REQUIRE(Minor == 16); // schema 1.16: GRU
}

TEST_CASE("argument errors are reported", "[capi]") {
  TestSession L(bytesOf(addMulModule()));
  float X[6] = {};
  REQUIRE(kiln_session_set_input(L.Session, 0, X, 20) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "input 0 'x' (f32[2,3]) takes 24 bytes, got 20");
  REQUIRE(kiln_session_set_input(L.Session, 1, X, 24) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) ==
          "input index 1 out of range (the model has 1 inputs)");
  REQUIRE(kiln_session_run(L.Session) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(std::string(kiln_last_error()) == "input 0 'x' was not set");
  const void *Data;
  size_t Size;
  REQUIRE(kiln_session_get_output(L.Session, 3, &Data, &Size) ==
          KILN_ERROR_INVALID_ARGUMENT);
  kiln_model *Rejected = nullptr; // not L.Model: a failed load nulls it
  REQUIRE(kiln_model_load_buffer(nullptr, 0, &Rejected) ==
          KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(Rejected == nullptr);
  REQUIRE(kiln_session_create(nullptr, nullptr, nullptr) ==
          KILN_ERROR_INVALID_ARGUMENT);
  kiln_session_options O = {}; // not initialized: struct_size is 0
  kiln_session *S = nullptr;
  kiln_model *M = nullptr;
  std::string Bytes = bytesOf(addMulModule());
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M) == KILN_OK);
  REQUIRE(kiln_session_create(M, &O, &S) == KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(S == nullptr);
  kiln_model_destroy(M);
}

TEST_CASE("the last error is per thread", "[capi]") {
  REQUIRE(kiln_model_load_buffer("x", 1, nullptr) ==
          KILN_ERROR_INVALID_ARGUMENT);
  std::string Other = "unset";
  std::thread T([&] { Other = kiln_last_error(); });
  T.join();
  REQUIRE(Other.empty());
  REQUIRE(std::string(kiln_last_error()) ==
          "kiln_model_load_buffer: null argument");
}

TEST_CASE("a session outlives its model", "[capi]") {
  TestSession L(bytesOf(addMulModule()));
  kiln_model_destroy(L.Model);
  L.Model = nullptr;
  float X[6] = {1, 1, 1, 1, 1, 1};
  REQUIRE(kiln_session_set_input(L.Session, 0, X, sizeof X) == KILN_OK);
  REQUIRE(kiln_session_run(L.Session) == KILN_OK);
  REQUIRE(L.output<float>(0) == std::vector<float>{4, 6, 8, 4, 6, 8});
}

TEST_CASE("kiln_model_load maps a file and names it in errors", "[capi]") {
  llvm::SmallString<128> Dir;
  REQUIRE(!llvm::sys::fs::createUniqueDirectory("kiln-capi", Dir));
  std::string Path = (Dir + "/m.kiln").str();
  REQUIRE(!writeFileAtomically(Path, bytesOf(addMulModule())));
  kiln_model *M = nullptr;
  REQUIRE(kiln_model_load(Path.c_str(), &M) == KILN_OK);
  kiln_model_destroy(M);
  std::string Missing = (Dir + "/missing.kiln").str();
  REQUIRE(kiln_model_load(Missing.c_str(), &M) == KILN_ERROR_IO);
  REQUIRE(std::string(kiln_last_error()) ==
          Missing + ": cannot open: No such file or directory");
  REQUIRE(!writeFileAtomically(Path, "not a model"));
  REQUIRE(kiln_model_load(Path.c_str(), &M) == KILN_ERROR_INVALID_MODEL);
  REQUIRE(std::string(kiln_last_error()) ==
          Path + ": not a .kiln file (no \"KILN\" identifier)");
  llvm::sys::fs::remove_directories(Dir);
}

TEST_CASE("a constant that ends the file is read through a padded copy",
          "[capi]") {
  // Without the writer's trailing zeros, the last constant ('two') ends
  // exactly at the end of the bytes, where XNNPACK's 16-byte over-read of a
  // binary operand would leave the buffer.
  std::string Bytes = bytesOf(addMulModule());
  const fb::Model *Root = fb::GetModel(Bytes.data());
  const fb::Buffer *Last = Root->buffers()->Get(Root->buffers()->size() - 1);
  Bytes.resize(size_t(Last->offset() + Last->size()));
  for (bool Reference : {false, true}) {
    TestSession L(Bytes, kernels(Reference));
    float X[6] = {0, 1, -5, 2.5f, -1, 0.5f};
    REQUIRE(kiln_session_set_input(L.Session, 0, X, sizeof X) == KILN_OK);
    REQUIRE(kiln_session_run(L.Session) == KILN_OK);
    REQUIRE(L.output<float>(0) == std::vector<float>{2, 6, 0, 7, 2, 7});
  }
}

TEST_CASE("kiln_verify_buffer checks in place", "[capi]") {
  std::string Bytes = bytesOf(addMulModule());
  REQUIRE(kiln_verify_buffer(Bytes.data(), Bytes.size()) == KILN_OK);
  // Cut where the header places the root table (its first 4 bytes, LE).
  uint32_t Root = 0;
  std::memcpy(&Root, Bytes.data(), sizeof Root);
  REQUIRE(Root > 8);
  REQUIRE(kiln_verify_buffer(Bytes.data(), Root) == KILN_ERROR_INVALID_MODEL);
  std::string R = std::to_string(Root);
  REQUIRE(std::string(kiln_last_error()) ==
          "the file has the \"KILN\" identifier but is " + R + " bytes, too "
          "short for the root table its header places at byte " + R +
          " (truncated?)");
  REQUIRE(kiln_verify_buffer(nullptr, 0) == KILN_ERROR_INVALID_ARGUMENT);
}
