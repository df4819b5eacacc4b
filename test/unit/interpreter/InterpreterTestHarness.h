// Helpers for the interpreter-core tests: run a graph written as .kir text
// (so each test carries its own numbers), build input tensors, and read
// results back as plain vectors to compare with hand-computed values.
#pragma once

#include "IR/Parser.h"
#include "Interpreter/Interpreter.h"
#include "Support/Error.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace interptest {

using kiln::ElementType;
using kiln::Tensor;

template <typename T>
inline Tensor make(ElementType E, std::vector<int64_t> Sizes,
                   std::vector<T> Values) {
  return Tensor::fromValues<T>(E, kiln::makeShape(Sizes), Values);
}
inline Tensor f32(std::vector<int64_t> Sizes, std::vector<float> V) {
  return make<float>(ElementType::F32, std::move(Sizes), std::move(V));
}
inline Tensor i64(std::vector<int64_t> Sizes, std::vector<int64_t> V) {
  return make<int64_t>(ElementType::I64, std::move(Sizes), std::move(V));
}

/// Parses Kir (a test bug if it fails) and runs it on Inputs.
inline llvm::Expected<std::vector<Tensor>>
run(const std::string &Kir, std::vector<Tensor> Inputs = {},
    kiln::InterpreterOptions Opts = {}) {
  auto G = kiln::parseGraph(Kir, "test.kir");
  if (!G) {
    std::string Msg = llvm::toString(G.takeError());
    FAIL("parse error: " << Msg);
  }
  if (Opts.Threads == 0)
    Opts.Threads = 1;
  kiln::Interpreter I(**G, Opts);
  return I.run(Inputs);
}

/// The results of a run that must succeed.
inline std::vector<Tensor> ok(llvm::Expected<std::vector<Tensor>> R) {
  if (!R) {
    std::string Msg = llvm::toString(R.takeError());
    FAIL("run failed: " << Msg);
  }
  return std::move(*R);
}

/// The message of a run that must fail.
inline std::string err(llvm::Expected<std::vector<Tensor>> R) {
  REQUIRE(!R);
  return llvm::toString(R.takeError());
}

inline std::vector<double> values(const Tensor &T) {
  std::vector<double> V;
  for (int64_t I = 0; I < T.numElements(); ++I)
    V.push_back(T.asDouble(I));
  return V;
}
inline std::vector<int64_t> ints(const Tensor &T) {
  std::vector<int64_t> V;
  for (int64_t I = 0; I < T.numElements(); ++I)
    V.push_back(T.asInt(I));
  return V;
}
inline std::vector<int64_t> sizes(const Tensor &T) {
  return kiln::staticSizes(T.type().Dims);
}

/// Checks shape and values (relative+absolute tolerance; NaN matches NaN).
inline void checkValues(const Tensor &T, std::vector<int64_t> Sizes,
                        std::vector<double> Want, double Rel = 1e-6,
                        double Abs = 1e-6) {
  REQUIRE(sizes(T) == Sizes);
  std::vector<double> Got = values(T);
  REQUIRE(Got.size() == Want.size());
  for (size_t I = 0; I < Got.size(); ++I) {
    INFO("element " << I << ": got " << Got[I] << ", want " << Want[I]);
    if (std::isnan(Want[I]))
      CHECK(std::isnan(Got[I]));
    else if (std::isinf(Want[I]))
      CHECK(Got[I] == Want[I]);
    else
      CHECK(std::abs(Got[I] - Want[I]) <= Abs + Rel * std::abs(Want[I]));
  }
}

} // namespace interptest
