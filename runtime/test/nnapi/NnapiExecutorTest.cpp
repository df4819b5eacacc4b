// What the NNAPI executor does without an NNAPI device: a library that
// cannot be loaded, or that lacks a level-27 function, fails session
// creation with KILN_ERROR_UNSUPPORTED naming it; options are checked. The
// end-to-end runs need the host NNAPI device (test/nnapi).
#include "NnapiTestModels.h"

#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace kiln;
using namespace kiln::nntest;

namespace {

struct Loaded {
  std::string Bytes = convModel().bytes();
  kiln_model *Model = nullptr;
  Loaded() {
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
  }
  ~Loaded() { kiln_model_destroy(Model); }

  /// Creates a session (destroyed at once); the status and message.
  kiln_status session(const kiln_session_options *O, std::string &Error) {
    kiln_session *S = nullptr;
    kiln_status St = kiln_session_create(Model, O, &S);
    Error = St == KILN_OK ? "" : kiln_last_error();
    kiln_session_destroy(S);
    return St;
  }
};

} // namespace

TEST_CASE("an NNAPI library that cannot be loaded is named",
          "[nnapi][executor]") {
  Loaded L;
  std::string Error;
  SECTION("from the environment") {
    setenv("KILN_NNAPI_LIBRARY", "/nonexistent/libneuralnetworks.so", 1);
    REQUIRE(L.session(nullptr, Error) == KILN_ERROR_UNSUPPORTED);
    unsetenv("KILN_NNAPI_LIBRARY");
    REQUIRE(Error.find("cannot load the NNAPI library "
                       "/nonexistent/libneuralnetworks.so: ") !=
            std::string::npos);
  }
  SECTION("from the options, before the environment") {
    setenv("KILN_NNAPI_LIBRARY", "/nonexistent/a.so", 1);
    kiln_nnapi_options N;
    kiln_nnapi_options_init(&N);
    N.library = "/nonexistent/b.so";
    kiln_session_options O;
    kiln_session_options_init(&O);
    O.nnapi = &N;
    REQUIRE(L.session(&O, Error) == KILN_ERROR_UNSUPPORTED);
    unsetenv("KILN_NNAPI_LIBRARY");
    REQUIRE(Error.find("cannot load the NNAPI library /nonexistent/b.so") !=
            std::string::npos);
  }
  SECTION("a library without NNAPI's functions") {
    kiln_nnapi_options N;
    kiln_nnapi_options_init(&N);
    N.library = "libm.so.6";
    kiln_session_options O;
    kiln_session_options_init(&O);
    O.nnapi = &N;
    REQUIRE(L.session(&O, Error) == KILN_ERROR_UNSUPPORTED);
    REQUIRE(Error.find("the NNAPI library libm.so.6 lacks "
                       "ANeuralNetworksMemory_createFromFd (API level 27)") !=
            std::string::npos);
  }
}

TEST_CASE("NNAPI options are checked", "[nnapi][executor]") {
  Loaded L;
  std::string Error;
  kiln_nnapi_options N;
  kiln_nnapi_options_init(&N);
  REQUIRE(N.struct_size == sizeof(kiln_nnapi_options));
  REQUIRE(N.preference == KILN_NNAPI_PREFER_FAST_SINGLE_ANSWER);
  kiln_session_options O;
  kiln_session_options_init(&O);
  REQUIRE(O.nnapi == nullptr);
  O.nnapi = &N;
  SECTION("a preference NNAPI does not have") {
    N.preference = 3;
    REQUIRE(L.session(&O, Error) == KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(Error.find("nnapi preference") != std::string::npos);
  }
  SECTION("an uninitialized struct") {
    N.struct_size = 4;
    REQUIRE(L.session(&O, Error) == KILN_ERROR_INVALID_ARGUMENT);
    REQUIRE(Error.find("kiln_nnapi_options_init") != std::string::npos);
  }
  SECTION("a caller built before the nnapi member") {
    O.struct_size = offsetof(kiln_session_options, nnapi);
    N.struct_size = 4; // not read
    setenv("KILN_NNAPI_LIBRARY", "/nonexistent/c.so", 1);
    REQUIRE(L.session(&O, Error) == KILN_ERROR_UNSUPPORTED);
    unsetenv("KILN_NNAPI_LIBRARY");
    REQUIRE(Error.find("/nonexistent/c.so") != std::string::npos);
  }
}
