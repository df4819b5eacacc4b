// The file's target (schema 1.4): the loader reads only files for a target
// it verifies (CPU, Vulkan, NNAPI and Metal, in every build), and names the
// targets this runtime runs when it refuses one; a file it verifies but has
// no executor for here loads, and its session is refused; files before 1.4
// carry none and are CPU files.
#include "RuntimeTestModels.h"
#include "metal/MetalTestModels.h"

#include <catch2/catch.hpp>

using namespace kiln;
using namespace kiln::testmodels;


TEST_CASE("a CPU file names its target", "[loader][target]") {
  std::string Bytes = bytesOf(addMulModule());
  REQUIRE(fb::GetModel(Bytes.data())->target() == fb::Target::CPU);
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  REQUIRE(std::string(kiln_model_target(Model)) == "cpu");
  kiln_model_destroy(Model);
  REQUIRE(kiln_model_target(nullptr) == nullptr);
}

TEST_CASE("a file for a target this runtime does not run is refused",
          "[loader][target]") {
  std::string Bytes = bytesOf(addMulModule());
  SECTION("a Metal file must carry the Metal payload") {
    // Every build verifies Metal files (kiln inspect off Apple).
    REQUIRE(mutableRoot(Bytes)->mutate_target(fb::Target::METAL));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "the payload (CpuPayload) is not the metal target's");
  }
  SECTION("a Vulkan file must carry the Vulkan payload") {
    // Every build verifies Vulkan files (kiln inspect on a CPU-only build).
    REQUIRE(mutableRoot(Bytes)->mutate_target(fb::Target::VULKAN));
    requireRejected(Bytes, KILN_ERROR_INVALID_MODEL,
                    "the payload (CpuPayload) is not the vulkan target's");
  }
  SECTION("a target newer than this runtime") {
    REQUIRE(mutableRoot(Bytes)->mutate_target(fb::Target(9)));
    requireRejected(Bytes, KILN_ERROR_UNSUPPORTED,
                    "the file is for target 9, which this runtime does not "
                    "know; it runs: cpu");
  }
}

TEST_CASE("a Metal file loads everywhere and runs only with Metal",
          "[loader][target]") {
  std::string Bytes = mtltest::chainModel().bytes();
  std::string Error;
  kiln_model *Model = nullptr;
  REQUIRE(tryLoad(Bytes, Error, &Model) == KILN_OK);
  REQUIRE(std::string(kiln_model_target(Model)) == "metal");
  kiln_session *Session = nullptr;
  kiln_status S = kiln_session_create(Model, nullptr, &Session);
#ifdef KILN_WITH_METAL
  // The executor is reached: whatever it makes of the stand-in MSL (or of
  // a machine without a Metal device), the build does not refuse Metal.
  std::string Message = S == KILN_OK ? "" : kiln_last_error();
  INFO("status " << S << ", message: " << Message);
  REQUIRE(Message.find("built without Metal") == std::string::npos);
  if (S == KILN_OK)
    kiln_session_destroy(Session);
#else
  std::string Message = S == KILN_OK ? "" : kiln_last_error();
  INFO("message: " << Message);
  REQUIRE(S == KILN_ERROR_UNSUPPORTED);
  REQUIRE(Session == nullptr);
  REQUIRE(Message.find("the file is for the metal target, and this runtime "
                       "was built without Metal (KILN_WITH_METAL") !=
          std::string::npos);
#endif
  kiln_model_destroy(Model);
}

TEST_CASE("a 1.4 file must name its target and carry its payload",
          "[loader][target]") {
  KilnModule M = addMulModule();
  SECTION("no target") {
    requireRejected(rawBytesOf(M), KILN_ERROR_INVALID_MODEL,
                    "the file names no target");
  }
  SECTION("no payload") {
    M.Model.target = fb::Target::CPU;
    requireRejected(rawBytesOf(M), KILN_ERROR_INVALID_MODEL,
                    "the file has no cpu payload");
  }
}

TEST_CASE("a file before 1.4, which has no target, is a CPU file",
          "[loader][target]") {
  std::string Bytes = rawBytesOf(addMulModule()); // target UNKNOWN, no payload
  REQUIRE(mutableRoot(Bytes)->mutate_schema_minor(3));
  kiln_model *Model = nullptr;
  REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) == KILN_OK);
  REQUIRE(std::string(kiln_model_target(Model)) == "cpu");
  kiln_session *Session = nullptr;
  REQUIRE(kiln_session_create(Model, nullptr, &Session) == KILN_OK);
  kiln_session_destroy(Session);
  kiln_model_destroy(Model);
}
