// Test harness of the NN kernel tests: builds a one-node graph whose present
// operands are all graph inputs (so shape inference, the kernel and the
// interpreter's result check all run), executes it with the reference
// interpreter, and compares results with independently computed values.
#pragma once

#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Tensor.h"
#include "Interpreter/Interpreter.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace nntest {

using Sizes = std::vector<int64_t>;

inline kiln::Tensor f32(Sizes S, const std::vector<float> &V) {
  return kiln::Tensor::fromValues<float>(kiln::ElementType::F32,
                                         kiln::makeShape(S), V);
}
inline kiln::Tensor f64(Sizes S, const std::vector<double> &V) {
  return kiln::Tensor::fromValues<double>(kiln::ElementType::F64,
                                          kiln::makeShape(S), V);
}
inline kiln::Tensor i64(Sizes S, const std::vector<int64_t> &V) {
  return kiln::Tensor::fromValues<int64_t>(kiln::ElementType::I64,
                                           kiln::makeShape(S), V);
}

inline int64_t count(const Sizes &S) {
  int64_t P = 1;
  for (int64_t D : S)
    P *= D;
  return P;
}

/// Seeded uniform values in [-1, 1).
inline std::vector<float> randomValues(int64_t N, uint32_t Seed) {
  std::mt19937 Gen(Seed);
  std::uniform_real_distribution<float> U(-1.0f, 1.0f);
  std::vector<float> V(static_cast<size_t>(N));
  for (float &X : V)
    X = U(Gen);
  return V;
}
inline kiln::Tensor randomF32(Sizes S, uint32_t Seed) {
  return f32(S, randomValues(count(S), Seed));
}

/// Every element of T as double.
inline std::vector<double> values(const kiln::Tensor &T) {
  std::vector<double> V(static_cast<size_t>(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = T.asDouble(int64_t(I));
  return V;
}

/// Runs op Name on Operands (null: absent) with Attrs; NumResults results.
inline llvm::Expected<std::vector<kiln::Tensor>>
runOp(llvm::StringRef Name, const std::vector<const kiln::Tensor *> &Operands,
      kiln::AttrMap Attrs = {}, unsigned NumResults = 1,
      unsigned Threads = 2) {
  kiln::Graph G("t");
  std::vector<kiln::Value *> Vals;
  std::vector<kiln::Tensor> Inputs;
  for (size_t I = 0; I < Operands.size(); ++I) {
    if (!Operands[I]) {
      Vals.push_back(nullptr);
      continue;
    }
    Vals.push_back(G.addInput(Operands[I]->type(), "in" + std::to_string(I)));
    Inputs.push_back(*Operands[I]);
  }
  auto N = kiln::createInferred(G, Name, Vals, std::move(Attrs), NumResults);
  if (!N)
    return N.takeError();
  for (unsigned R = 0; R < NumResults; ++R)
    G.addOutput((*N)->result(R));
  kiln::InterpreterOptions Opts;
  Opts.Threads = Threads;
  kiln::Interpreter Interp(G, Opts);
  return Interp.run(Inputs);
}

/// Message of the error runOp returns (empty if it succeeds).
inline std::string runError(llvm::StringRef Name,
                            const std::vector<const kiln::Tensor *> &Operands,
                            kiln::AttrMap Attrs = {}, unsigned NumResults = 1) {
  auto R = runOp(Name, Operands, std::move(Attrs), NumResults);
  if (R)
    return "";
  return llvm::toString(R.takeError());
}

/// Checks T's sizes and that each element is within Atol + Rtol * |want|.
inline void checkClose(const kiln::Tensor &T, const Sizes &WantSizes,
                       const std::vector<double> &Want, double Atol = 1e-5,
                       double Rtol = 1e-5) {
  REQUIRE(kiln::toString(T.type().Dims) ==
          kiln::toString(kiln::makeShape(WantSizes)));
  REQUIRE(Want.size() == static_cast<size_t>(T.numElements()));
  std::vector<double> Got = values(T);
  for (size_t I = 0; I < Want.size(); ++I) {
    INFO("element " << I << ": got " << Got[I] << ", want " << Want[I]);
    REQUIRE(std::fabs(Got[I] - Want[I]) <= Atol + Rtol * std::fabs(Want[I]));
  }
}

/// Decodes a row-major flat index into coordinates.
inline Sizes coordsOf(int64_t Flat, const Sizes &Grid) {
  Sizes C(Grid.size());
  for (size_t D = Grid.size(); D-- > 0;) {
    C[D] = Flat % Grid[D];
    Flat /= Grid[D];
  }
  return C;
}

} // namespace nntest
