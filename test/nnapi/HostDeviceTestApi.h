// The host NNAPI device's tests: the library dlopened by path (as the
// executor does), a model builder and a one-input runner, shared by
// HostDeviceTest.cpp and HostDeviceAospTest.cpp.
#pragma once

#include "schema/nnapi/NeuralNetworksApi.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::nnapi::test {

/// The library's functions, loaded with dlsym from the same list the
/// executor uses.
struct Api {
  void *Handle = nullptr;
#define KILN_API_MEMBER(Name, Ret, Params) Ret(*Name) Params = nullptr;
  KILN_NNAPI_FUNCTIONS(KILN_API_MEMBER)
#undef KILN_API_MEMBER

  Api() {
    Handle = dlopen(KILN_NNAPI_HOST_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!Handle)
      FAIL("dlopen " KILN_NNAPI_HOST_PATH ": " << dlerror());
#define KILN_API_LOAD(Name, Ret, Params)                                      \
  Name = reinterpret_cast<decltype(Name)>(dlsym(Handle, #Name));               \
  if (!Name)                                                                   \
    FAIL("missing " #Name);
    KILN_NNAPI_FUNCTIONS(KILN_API_LOAD)
#undef KILN_API_LOAD
  }
};

inline Api &api() {
  static Api A;
  return A;
}

/// Sets an environment variable for one scope, then restores it.
struct ScopedEnv {
  std::string Name, Saved;
  bool Had = false;
  ScopedEnv(const char *N, const std::string &Value) : Name(N) {
    if (const char *Old = getenv(N)) {
      Had = true;
      Saved = Old;
    }
    setenv(N, Value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (Had)
      setenv(Name.c_str(), Saved.c_str(), 1);
    else
      unsetenv(Name.c_str());
  }
};

/// Builds a model operand by operand.
struct Builder {
  ANeuralNetworksModel *M = nullptr;
  uint32_t Count = 0;
  std::vector<std::vector<uint8_t>> Keep; // values over 128 bytes are referenced
  int Error = NO_ERROR; // the first failing call's result

  Builder() { REQUIRE(api().ANeuralNetworksModel_create(&M) == NO_ERROR); }
  ~Builder() { api().ANeuralNetworksModel_free(M); }

  void check(int R) {
    if (Error == NO_ERROR)
      Error = R;
  }
  uint32_t operand(int32_t Type, std::vector<uint32_t> Dims = {}, float Scale = 0,
                   int32_t Zp = 0) {
    ANeuralNetworksOperandType T{Type, uint32_t(Dims.size()),
                                 Dims.empty() ? nullptr : Dims.data(), Scale, Zp};
    check(api().ANeuralNetworksModel_addOperand(M, &T));
    return Count++;
  }
  template <typename T>
  uint32_t constant(int32_t Type, std::vector<uint32_t> Dims,
                    const std::vector<T> &Values, float Scale = 0, int32_t Zp = 0) {
    uint32_t I = operand(Type, Dims, Scale, Zp);
    Keep.emplace_back(reinterpret_cast<const uint8_t *>(Values.data()),
                      reinterpret_cast<const uint8_t *>(Values.data() + Values.size()));
    check(api().ANeuralNetworksModel_setOperandValue(M, int32_t(I), Keep.back().data(),
                                                     Keep.back().size()));
    return I;
  }
  uint32_t i32(int32_t V) { return constant(INT32, {}, std::vector<int32_t>{V}); }
  uint32_t f32(float V) { return constant(FLOAT32, {}, std::vector<float>{V}); }
  uint32_t boolean(bool V) { return constant(BOOL, {}, std::vector<uint8_t>{V}); }
  void op(int32_t Type, std::vector<uint32_t> In, std::vector<uint32_t> Out) {
    check(api().ANeuralNetworksModel_addOperation(M, Type, uint32_t(In.size()),
                                                  In.data(), uint32_t(Out.size()),
                                                  Out.data()));
  }
  /// identifyInputsAndOutputs + finish; the first failure's result.
  int finish(std::vector<uint32_t> In, std::vector<uint32_t> Out) {
    check(api().ANeuralNetworksModel_identifyInputsAndOutputs(
        M, uint32_t(In.size()), In.data(), uint32_t(Out.size()), Out.data()));
    if (Error == NO_ERROR)
      check(api().ANeuralNetworksModel_finish(M));
    return Error;
  }
};

inline ANeuralNetworksCompilation *compile(ANeuralNetworksModel *M) {
  ANeuralNetworksCompilation *C = nullptr;
  REQUIRE(api().ANeuralNetworksCompilation_create(M, &C) == NO_ERROR);
  REQUIRE(api().ANeuralNetworksCompilation_finish(C) == NO_ERROR);
  return C;
}

/// Compiles and runs a one-input one-output model.
template <typename In, typename Out>
void run(ANeuralNetworksModel *M, const std::vector<In> &Input,
         std::vector<Out> &Output) {
  ANeuralNetworksCompilation *C = compile(M);
  ANeuralNetworksExecution *E = nullptr;
  REQUIRE(api().ANeuralNetworksExecution_create(C, &E) == NO_ERROR);
  REQUIRE(api().ANeuralNetworksExecution_setInput(E, 0, nullptr, Input.data(),
                                                  Input.size() * sizeof(In)) == NO_ERROR);
  REQUIRE(api().ANeuralNetworksExecution_setOutput(E, 0, nullptr, Output.data(),
                                                   Output.size() * sizeof(Out)) ==
          NO_ERROR);
  ANeuralNetworksEvent *Ev = nullptr;
  REQUIRE(api().ANeuralNetworksExecution_startCompute(E, &Ev) == NO_ERROR);
  REQUIRE(api().ANeuralNetworksEvent_wait(Ev) == NO_ERROR);
  api().ANeuralNetworksEvent_free(Ev);
  api().ANeuralNetworksExecution_free(E);
  api().ANeuralNetworksCompilation_free(C);
}

/// Deterministic pseudo-random values in [Lo, Hi).
inline std::vector<float> values(size_t N, float Lo, float Hi, uint32_t Seed) {
  std::vector<float> V(N);
  uint32_t S = Seed;
  for (float &X : V) {
    S = S * 1664525u + 1013904223u;
    X = Lo + (Hi - Lo) * float(S >> 8) / float(1 << 24);
  }
  return V;
}

} // namespace kiln::nnapi::test
