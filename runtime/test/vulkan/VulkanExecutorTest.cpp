// The Vulkan executor on whatever device this machine has (Mesa's lavapipe
// in CI), with the validation layer on and asserting that it reports
// nothing: dispatch chains through the arena, weight uploads at offsets,
// per-operator GPU times, intermediates read back (C4 to NHWC), the pipeline
// cache on disk, and the C API's Vulkan options. Without a Vulkan device the
// tests fail in CI (CI set) and say they were skipped elsewhere.
#include "VulkanTestModels.h"

#include "loader/LoadedModel.h"
#include "target/RuntimeTargets.h"
#include "session/Session.h"
#include "vulkan/VulkanExecutor.h"
#include "gpu/GpuReadback.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <unistd.h>

using namespace kiln;
using namespace kiln::rt;
using namespace kiln::vktest;

namespace {

std::shared_ptr<const LoadedModel> load(const VulkanModel &M) {
  std::string Bytes = M.bytes();
  std::shared_ptr<ModelBytes> Copy;
  REQUIRE(ModelBytes::copyBuffer(Bytes.data(), Bytes.size(), Copy).isOk());
  std::shared_ptr<const LoadedModel> Out;
  Status S = loadVerifiedModel(Copy, Out);
  INFO(S.message());
  REQUIRE(S.isOk());
  return Out;
}

/// A session on the model with validation on, or null (skipped) when this
/// machine has no Vulkan device.
std::unique_ptr<Session> sessionOrSkip(const VulkanModel &M,
                                       SessionOptions O = {}) {
  O.Vulkan.Validation = true;
  std::unique_ptr<Session> S;
  Status St = Session::create(load(M), O, S);
  if (!St.isOk()) {
    bool NoDevice = St.code() == KILN_ERROR_UNSUPPORTED &&
                    St.message().find("Vulkan: no") != std::string::npos;
    if (!NoDevice || std::getenv("CI"))
      FAIL("creating the Vulkan session failed: " << St.message());
    WARN("SKIPPED: no Vulkan device here: " << St.message());
    return nullptr;
  }
  return S;
}

const vk::VulkanExecutor &executor(const Session &S) {
  return dynamic_cast<const vk::VulkanExecutor &>(S.executor());
}

void requireNoValidationMessages(const Session &S) {
  std::vector<std::string> Messages = executor(S).validationMessages();
  for (const std::string &M : Messages)
    UNSCOPED_INFO("validation: " << M);
  REQUIRE(Messages.empty());
}

std::vector<float> output(const Session &S, size_t Floats) {
  const void *Data = nullptr;
  size_t Bytes = 0;
  REQUIRE(S.output(0, &Data, &Bytes).isOk());
  REQUIRE(Bytes == Floats * 4);
  const float *F = static_cast<const float *>(Data);
  return std::vector<float>(F, F + Floats);
}

const std::vector<float> X = {0.5f, -1.f, 2.f, 3.25f, -4.f, 10.f};

} // namespace

TEST_CASE("an INPUT -> ARENA -> OUTPUT chain of dispatches gives the loop's "
          "values",
          "[vulkan][executor]") {
  std::unique_ptr<Session> S = sessionOrSkip(chainModel());
  if (!S)
    return;
  INFO("device: " << executor(*S).device().name());
  REQUIRE(S->setInput(0, X.data(), 24).isOk());
  for (int Run = 0; Run < 2; ++Run) { // the recorded commands run again
    REQUIRE(S->run().isOk());
    std::vector<float> Y = output(*S, 6);
    for (size_t I = 0; I < 6; ++I)
      REQUIRE(Y[I] == -(X[I] * 2.f + 1.f) + 0.5f);
  }
  REQUIRE(std::string(S->engine(0)) == "vulkan");
  REQUIRE(S->arenaBytes() == 512);
  // Two specializations of one shader: two pipelines.
  REQUIRE(executor(*S).numPipelines() == 2);
  requireNoValidationMessages(*S);
}

TEST_CASE("WEIGHTS buffers are filled from segments at their offsets",
          "[vulkan][executor]") {
  std::unique_ptr<Session> S = sessionOrSkip(weightsModel());
  if (!S)
    return;
  REQUIRE(S->setInput(0, X.data(), 24).isOk());
  REQUIRE(S->run().isOk());
  std::vector<float> Y = output(*S, 6);
  for (size_t I = 0; I < 6; ++I)
    REQUIRE(Y[I] == X[I] + float(I + 1) + 100.f * float(I + 1));
  requireNoValidationMessages(*S);
}

TEST_CASE("profiling fills each operator's slot with its dispatches' GPU time",
          "[vulkan][executor]") {
  std::unique_ptr<Session> S = sessionOrSkip(chainModel());
  if (!S)
    return;
  if (!executor(*S).timesDispatches()) {
    WARN("SKIPPED: this device has no timestamps on its compute queue");
    return;
  }
  S->setProfiling(true);
  REQUIRE(S->setInput(0, X.data(), 24).isOk());
  REQUIRE(S->run().isOk());
  REQUIRE(S->operatorTimes().size() == 2);
  for (uint64_t Ns : S->operatorTimes())
    REQUIRE(Ns > 0);
  // The timed recording computes the same values.
  std::vector<float> Y = output(*S, 6);
  REQUIRE(Y[0] == -(X[0] * 2.f + 1.f) + 0.5f);
  requireNoValidationMessages(*S);
}

TEST_CASE("keep_intermediates reads activations back in the host layout",
          "[vulkan][executor]") {
  SessionOptions O;
  O.KeepIntermediates = true;
  SECTION("a PLAIN activation in the arena") {
    std::unique_ptr<Session> S = sessionOrSkip(chainModel(), O);
    if (!S)
      return;
    REQUIRE(S->setInput(0, X.data(), 24).isOk());
    REQUIRE(S->run().isOk());
    const float *A = reinterpret_cast<const float *>(S->tensorData(1));
    REQUIRE(A);
    for (size_t I = 0; I < 6; ++I)
      REQUIRE(A[I] == X[I] * 2.f + 1.f);
    requireNoValidationMessages(*S);
  }
  SECTION("a C4 activation becomes NHWC") {
    std::unique_ptr<Session> S = sessionOrSkip(c4Model(), O);
    if (!S)
      return;
    REQUIRE(S->setInput(0, X.data(), 24).isOk());
    REQUIRE(S->run().isOk());
    // The output shows the device layout: two pixels of 3 channels + 1 zero.
    std::vector<float> Y = output(*S, 8);
    REQUIRE(Y == std::vector<float>{X[0], X[1], X[2], 0, X[3], X[4], X[5], 0});
    const float *C = reinterpret_cast<const float *>(S->tensorData(1));
    REQUIRE(C);
    REQUIRE(std::vector<float>(C, C + 6) == X);
    requireNoValidationMessages(*S);
  }
}

TEST_CASE("keep_intermediates reads operators without dispatches (aliases)",
          "[vulkan][executor]") {
  SessionOptions O;
  O.KeepIntermediates = true;
  std::unique_ptr<Session> S = sessionOrSkip(aliasModel(), O);
  if (!S)
    return;
  REQUIRE(S->setInput(0, X.data(), 24).isOk());
  REQUIRE(S->run().isOk());
  // r aliases the input buffer; b aliases a's place in the arena.
  const float *R = reinterpret_cast<const float *>(S->tensorData(1));
  const float *A = reinterpret_cast<const float *>(S->tensorData(2));
  const float *B = reinterpret_cast<const float *>(S->tensorData(3));
  REQUIRE(R);
  REQUIRE(A);
  REQUIRE(B);
  for (size_t I = 0; I < 6; ++I) {
    REQUIRE(R[I] == X[I]);
    REQUIRE(A[I] == X[I] * 2.f + 1.f);
    REQUIRE(B[I] == A[I]);
  }
  // u has no place: no host bytes, and the C API says so (below).
  REQUIRE(S->tensorData(4) == nullptr);
  requireNoValidationMessages(*S);
}

TEST_CASE("kiln_session_tensor fails cleanly for a tensor with no host bytes",
          "[vulkan][capi]") {
  std::string Bytes = aliasModel().bytes();
  kiln_model *M = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M) == KILN_OK);
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.keep_intermediates = 1;
  kiln_session *S = nullptr;
  if (kiln_session_create(M, &O, &S) != KILN_OK) {
    std::string Why = kiln_last_error();
    kiln_model_destroy(M);
    if (std::getenv("CI") || Why.find("Vulkan: no") == std::string::npos)
      FAIL(Why);
    WARN("SKIPPED: " << Why);
    return;
  }
  REQUIRE(kiln_session_set_input(S, 0, X.data(), 24) == KILN_OK);
  REQUIRE(kiln_session_run(S) == KILN_OK);
  kiln_tensor_value V;
  REQUIRE(kiln_session_tensor(S, 3, &V) == KILN_OK);
  REQUIRE(V.data != nullptr);
  REQUIRE(kiln_session_tensor(S, 4, &V) == KILN_ERROR_UNSUPPORTED);
  REQUIRE(std::string(kiln_last_error()).find("'u'") != std::string::npos);
  kiln_engine_info Info;
  Info.struct_size = sizeof Info;
  REQUIRE(kiln_session_engine_info(S, &Info) == KILN_OK);
  REQUIRE(std::string(Info.target) == "vulkan");
  REQUIRE(std::string(Info.device).size() > 0);
  REQUIRE(Info.dispatches == 2);
  REQUIRE(Info.pipelines >= 1);
  kiln_session_destroy(S);
  kiln_model_destroy(M);
}

TEST_CASE("the pipeline cache is written to its folder and read back",
          "[vulkan][executor]") {
  std::filesystem::path Dir = std::filesystem::temp_directory_path() /
                              ("kiln-vkpc-" + std::to_string(::getpid()));
  std::filesystem::remove_all(Dir);
  SessionOptions O;
  O.Vulkan.PipelineCacheDir = (Dir / "sub").string(); // created when missing
  std::string Path;
  {
    std::unique_ptr<Session> S = sessionOrSkip(chainModel(), O);
    if (!S)
      return;
    const vk::PipelineCache &C = executor(*S).pipelineCache();
    Path = C.path();
    REQUIRE(C.loadedBytes() == 0);
    REQUIRE(std::filesystem::exists(Path));
    REQUIRE_THAT(std::filesystem::path(Path).filename().string(),
                 Catch::StartsWith("kiln-") && Catch::EndsWith(".vkpc"));
    requireNoValidationMessages(*S);
  }
  {
    std::unique_ptr<Session> S = sessionOrSkip(chainModel(), O);
    REQUIRE(S);
    REQUIRE(executor(*S).pipelineCache().loadedBytes() ==
            std::filesystem::file_size(Path));
    REQUIRE(S->setInput(0, X.data(), 24).isOk());
    REQUIRE(S->run().isOk());
    REQUIRE(output(*S, 6)[1] == -(X[1] * 2.f + 1.f) + 0.5f);
    requireNoValidationMessages(*S);
  }
  {
    // A file whose header names another device is ignored.
    std::string Junk(64, '\x01');
    FILE *F = std::fopen(Path.c_str(), "wb");
    REQUIRE(F);
    std::fwrite(Junk.data(), 1, Junk.size(), F);
    std::fclose(F);
    std::unique_ptr<Session> S = sessionOrSkip(chainModel(), O);
    REQUIRE(S);
    REQUIRE(executor(*S).pipelineCache().loadedBytes() == 0);
    requireNoValidationMessages(*S);
  }
  std::filesystem::remove_all(Dir);
}

TEST_CASE("the C API runs a Vulkan file with kiln_vulkan_options",
          "[vulkan][executor][capi]") {
  std::string Bytes = chainModel().bytes();
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  kiln_vulkan_options V;
  kiln_vulkan_options_init(&V);
  REQUIRE(V.device_index == -1);
  REQUIRE(V.fp16_arithmetic == KILN_VULKAN_FP16_ARITHMETIC_AUTO);
  V.validation = 1;
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.vulkan = &V;
  kiln_session *Session = nullptr;
  kiln_status St = kiln_session_create(Model, &O, &Session);
  if (St == KILN_ERROR_UNSUPPORTED && !std::getenv("CI")) {
    WARN("SKIPPED: no Vulkan device here: " << kiln_last_error());
    kiln_model_destroy(Model);
    return;
  }
  INFO(kiln_last_error());
  REQUIRE(St == KILN_OK);
  REQUIRE(kiln_session_set_input(Session, 0, X.data(), 24) == KILN_OK);
  REQUIRE(kiln_session_run(Session) == KILN_OK);
  const void *Data = nullptr;
  size_t Size = 0;
  REQUIRE(kiln_session_get_output(Session, 0, &Data, &Size) == KILN_OK);
  REQUIRE(Size == 24);
  REQUIRE(static_cast<const float *>(Data)[2] == -(X[2] * 2.f + 1.f) + 0.5f);
  REQUIRE(std::string(kiln_session_operator_engine(Session, 1)) == "vulkan");
  kiln_session_destroy(Session);

  SECTION("a device that is not there") {
    V.device_index = 42;
    REQUIRE(kiln_session_create(Model, &O, &Session) != KILN_OK);
    REQUIRE_THAT(std::string(kiln_last_error()), Catch::Contains("device 42"));
  }
  SECTION("vulkan options from before fp16_arithmetic") {
    V.struct_size = offsetof(kiln_vulkan_options, fp16_arithmetic);
    V.fp16_arithmetic = 77; // past the caller's struct: never read
    REQUIRE(kiln_session_create(Model, &O, &Session) == KILN_OK);
    kiln_session_destroy(Session);
  }
  SECTION("vulkan options not initialized") {
    V.struct_size = 3;
    REQUIRE(kiln_session_create(Model, &O, &Session) ==
            KILN_ERROR_INVALID_ARGUMENT);
  }
  kiln_model_destroy(Model);
}

TEST_CASE("a workgroup or a grid beyond what its tensors need is refused "
          "when the file is loaded",
          "[vulkan][executor]") {
  auto LoadError = [](const VulkanModel &M) {
    std::string Bytes = M.bytes();
    std::shared_ptr<ModelBytes> Copy;
    REQUIRE(ModelBytes::copyBuffer(Bytes.data(), Bytes.size(), Copy).isOk());
    std::shared_ptr<const LoadedModel> Out;
    Status S = loadVerifiedModel(Copy, Out);
    REQUIRE(S.code() == KILN_ERROR_INVALID_MODEL);
    return S.message();
  };
  // A workgroup of 2^20 invocations: over every device's limit.
  VulkanModel Wide = chainModel();
  Wide.payload().dispatches[0]->spec_constants[0] = {0, 1u << 20};
  CHECK_THAT(LoadError(Wide),
             Catch::Contains("Vulkan dispatch 0: workgroup x is 1048576, "
                             "outside [1, 128]"));
  // A 65535 x 65535 grid of the kernel's own 64-wide groups: 2.7e11
  // invocations for a few bytes of tensors (about half an hour on two
  // cores).
  VulkanModel Long = chainModel();
  Long.payload().dispatches[0]->group_count_x = 65535;
  Long.payload().dispatches[0]->group_count_y = 65535;
  CHECK_THAT(LoadError(Long),
             Catch::Contains("Vulkan dispatch 0: the dispatch runs "
                             "274869518400 invocations (65535 x 65535 x 1 "
                             "groups of 64)"));
}

TEST_CASE("fp16 intermediates are widened to f32 on the host",
          "[vulkan][readback]") {
  TensorDesc D;
  D.DType = fb::DType::F32;
  D.Layout = fb::Layout::C4;
  D.Shape = {1, 1, 2, 3};
  D.Elements = 6;
  D.Bytes = 24;
  // [1][1][1][2][4] halves: 1 2 3 pad | 4 5 6 pad.
  const uint16_t Src[8] = {0x3c00, 0x4000, 0x4200, 0x7c00,
                           0x4400, 0x4500, 0x4600, 0x7c00};
  float Dst[6] = {};
  placeToHost(D, true, reinterpret_cast<const uint8_t *>(Src),
                  reinterpret_cast<uint8_t *>(Dst));
  REQUIRE(std::vector<float>(Dst, Dst + 6) ==
          std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("the device features a model needs are enabled or refused",
          "[vulkan][executor]") {
  VulkanModel M = chainModel();
  SECTION("fp16 models get shaderFloat16 and storageBuffer16BitAccess") {
    M.payload().fp16 = true;
    M.payload().required_features = {"shaderFloat16"};
    SessionOptions O;
    O.Vulkan.Validation = true;
    std::unique_ptr<Session> S;
    Status St = Session::create(load(M), O, S);
    if (!St.isOk() && !std::getenv("CI")) {
      WARN("SKIPPED: " << St.message());
      return;
    }
    INFO(St.message());
    REQUIRE(St.isOk());
    REQUIRE(S->setInput(0, X.data(), 24).isOk());
    REQUIRE(S->run().isOk());
    REQUIRE(output(*S, 6)[3] == -(X[3] * 2.f + 1.f) + 0.5f);
    requireNoValidationMessages(*S);
    REQUIRE(executor(*S).precision() == "fp16 storage, fp16 arithmetic");
  }
  SECTION("fp16 files that compute in fp32 need only 16-bit storage, and "
          "the session says so") {
    // What kiln convert --quantize fp16 writes: a device without
    // shaderFloat16 runs it.
    M.payload().fp16 = true;
    M.payload().required_features = {"storageBuffer16BitAccess"};
    SessionOptions O;
    O.Vulkan.Validation = true;
    std::unique_ptr<Session> S;
    Status St = Session::create(load(M), O, S);
    if (!St.isOk() && !std::getenv("CI")) {
      WARN("SKIPPED: " << St.message());
      return;
    }
    INFO(St.message());
    REQUIRE(St.isOk());
    REQUIRE(executor(*S).precision() == "fp16 storage, fp32 arithmetic");
    requireNoValidationMessages(*S);
  }
  SECTION("fp16 files with fp16-arithmetic twins run the twins where the "
          "device has shaderFloat16, and not when asked not to") {
    VulkanModel T = twinModel();
    // 0.1 is inexact in fp16: x * 2 + 1 rounds to 1.2001953125 there, and
    // 1.2 * -1 + 0.5 to -0.7001953125; fp32 gives -0.7.
    std::vector<float> In = X;
    In[0] = 0.1f;
    SessionOptions Off;
    Off.Vulkan.Fp16Arithmetic = false;
    for (bool Auto : {true, false}) {
      INFO("fp16_arithmetic " << (Auto ? "auto" : "off"));
      std::unique_ptr<Session> S = sessionOrSkip(T, Auto ? SessionOptions() : Off);
      if (!S)
        return;
      REQUIRE(S->setInput(0, In.data(), 24).isOk());
      REQUIRE(S->run().isOk());
      float Y0 = output(*S, 6)[0];
      requireNoValidationMessages(*S);
      if (!Auto) {
        REQUIRE(executor(*S).precision() ==
                "fp16 storage, fp32 arithmetic (fp16_arithmetic off)");
        REQUIRE(Y0 == -(0.1f * 2.f + 1.f) + 0.5f);
      } else if (executor(*S).device().shaderFloat16()) {
        REQUIRE(executor(*S).precision() == "fp16 storage, fp16 arithmetic");
        REQUIRE(Y0 == -0.7001953125f);
      } else {
        REQUIRE(executor(*S).precision() ==
                "fp16 storage, fp32 arithmetic (device lacks shaderFloat16)");
        REQUIRE(Y0 == -(0.1f * 2.f + 1.f) + 0.5f);
      }
    }
  }
  SECTION("KILN_VULKAN_FP16_ARITHMETIC=off in the environment") {
    setenv("KILN_VULKAN_FP16_ARITHMETIC", "off", 1);
    std::unique_ptr<Session> S = sessionOrSkip(twinModel());
    unsetenv("KILN_VULKAN_FP16_ARITHMETIC");
    if (!S)
      return;
    REQUIRE(executor(*S).precision() ==
            "fp16 storage, fp32 arithmetic (fp16_arithmetic off)");
  }
  SECTION("fp32 files say fp32") {
    std::unique_ptr<Session> S;
    Status St = Session::create(load(M), SessionOptions(), S);
    if (!St.isOk() && !std::getenv("CI")) {
      WARN("SKIPPED: " << St.message());
      return;
    }
    REQUIRE(St.isOk());
    REQUIRE(executor(*S).precision() == "fp32");
  }
  SECTION("a feature this runtime does not know") {
    M.payload().required_features = {"teleportation"};
    std::unique_ptr<Session> S;
    Status St = Session::create(load(M), SessionOptions(), S);
    REQUIRE(St.code() == KILN_ERROR_UNSUPPORTED);
    REQUIRE_THAT(St.message(), Catch::Contains("'teleportation'"));
  }
}
