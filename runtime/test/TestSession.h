// A model and one session over it, for the runtime's tests: loaded from
// bytes, one thread, destroyed together. Every failing call is a test
// failure.
#pragma once

#include "RuntimeKernels.h"
#include "kiln/kiln.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace kiln::testmodels {

using kiln::testing::Kernels;

class TestSession {
public:
  TestSession() = default;
  explicit TestSession(const std::string &Bytes,
                       Kernels K = Kernels::Default) {
    open(Bytes, options(K));
  }
  ~TestSession() {
    kiln_session_destroy(Session);
    kiln_model_destroy(Model);
  }
  TestSession(const TestSession &) = delete;
  TestSession &operator=(const TestSession &) = delete;

  /// One thread and the kernels K.
  static kiln_session_options options(Kernels K) {
    return kiln::testing::sessionOptions(K);
  }
  void open(const std::string &Bytes, const kiln_session_options &O) {
    REQUIRE(kiln_model_load_buffer(Bytes.data(), Bytes.size(), &Model) ==
            KILN_OK);
    REQUIRE(kiln_session_create(Model, &O, &Session) == KILN_OK);
  }

  /// Sets input 0 to Bytes bytes at Data and runs.
  void run(const void *Data, size_t Bytes) {
    REQUIRE(kiln_session_set_input(Session, 0, Data, Bytes) == KILN_OK);
    REQUIRE(kiln_session_run(Session) == KILN_OK);
  }
  template <typename T> std::vector<T> output(size_t Index = 0) const {
    const void *Data = nullptr;
    size_t Bytes = 0;
    REQUIRE(kiln_session_get_output(Session, Index, &Data, &Bytes) == KILN_OK);
    std::vector<T> V(Bytes / sizeof(T));
    std::memcpy(V.data(), Data, V.size() * sizeof(T));
    return V;
  }
  /// The kernel library of every operator, in order.
  std::vector<std::string> engines() const {
    std::vector<std::string> E;
    for (size_t I = 0; I < kiln_session_num_operators(Session); ++I)
      E.push_back(kiln_session_operator_engine(Session, I));
    return E;
  }

  kiln_model *Model = nullptr;
  kiln_session *Session = nullptr;
};

} // namespace kiln::testmodels
