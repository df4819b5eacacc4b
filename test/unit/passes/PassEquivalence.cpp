#include "PassEquivalence.h"

#include "IR/Parser.h"
#include "IR/Printer.h"
#include "Interpreter/Interpreter.h"
#include "passes/PassManager.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

using namespace kiln;

namespace passtest {

std::string randomDense(std::mt19937 &Rng, int64_t Count, double Lo,
                        double Hi) {
  std::uniform_real_distribution<double> D(Lo, Hi);
  std::string S = "dense[";
  char Buf[32];
  for (int64_t I = 0; I < Count; ++I) {
    std::snprintf(Buf, sizeof(Buf), "%s%.6f", I ? ", " : "", D(Rng));
    S += Buf;
  }
  return S + "]";
}

std::unique_ptr<Graph> parse(const std::string &Kir) {
  return requireValue(parseGraph(Kir, "test.kir"));
}

int64_t countOps(const Graph &G, const std::string &Name) {
  int64_t N = 0;
  for (const Node &Nd : G.nodes())
    N += Nd.isOp(Name);
  return N;
}

/// Seeded inputs for every graph input (static shapes only).
static std::vector<Tensor> randomInputs(const Graph &G, std::mt19937 &Rng) {
  std::vector<Tensor> In;
  for (const Value *V : G.inputs()) {
    const TensorType &T = V->type();
    REQUIRE(T.isStatic());
    int64_t N = *numElements(T.Dims);
    if (T.Elem == ElementType::F32) {
      std::uniform_real_distribution<float> D(-2.f, 2.f);
      std::vector<float> Vals(static_cast<size_t>(N));
      for (float &X : Vals)
        X = D(Rng);
      In.push_back(Tensor::fromValues<float>(T.Elem, T.Dims, Vals));
    } else if (T.Elem == ElementType::I64) {
      std::uniform_int_distribution<int64_t> D(-5, 5);
      std::vector<int64_t> Vals(static_cast<size_t>(N));
      for (int64_t &X : Vals)
        X = D(Rng);
      In.push_back(Tensor::fromValues<int64_t>(T.Elem, T.Dims, Vals));
    } else {
      FAIL("test inputs must be f32 or i64, got " << toString(T));
    }
  }
  return In;
}

static std::vector<Tensor> runGraph(const Graph &G,
                                    const std::vector<Tensor> &In) {
  InterpreterOptions O;
  O.Threads = 1;
  Interpreter I(G, O);
  return requireValue(I.run(In));
}

std::unique_ptr<Graph> checkEquivalent(const std::string &Kir,
                                       const std::vector<std::string> &Passes,
                                       Tolerance Tol, unsigned Seed, int Runs) {
  std::unique_ptr<Graph> Before = parse(Kir), After = parse(Kir);
  PassManagerOptions PMO;
  PMO.VerifyEach = true;
  PassManager PM(PMO);
  for (const std::string &P : Passes)
    REQUIRE_NO_ERROR(PM.add(P));
  REQUIRE_NO_ERROR(PM.run(*After));
  bool Changed = false;
  for (const PassRunRecord &R : PM.records())
    Changed |= R.Changed;
  INFO("after the passes:\n" << printGraphToString(*After));
  // An equivalence test of a pass that did nothing would prove nothing.
  REQUIRE(Changed);
  REQUIRE(After->outputs().size() == Before->outputs().size());

  std::mt19937 Rng(Seed);
  for (int Run = 0; Run < Runs; ++Run) {
    std::vector<Tensor> In = randomInputs(*Before, Rng);
    std::vector<Tensor> Want = runGraph(*Before, In);
    std::vector<Tensor> Got = runGraph(*After, In);
    REQUIRE(Got.size() == Want.size());
    for (size_t O = 0; O < Want.size(); ++O) {
      INFO("run " << Run << ", output " << O);
      REQUIRE(Got[O].type().Elem == Want[O].type().Elem);
      REQUIRE(Got[O].type().Dims == Want[O].type().Dims);
      int64_t Bad = 0;
      double MaxErr = 0;
      for (int64_t I = 0; I < Want[O].numElements(); ++I) {
        double Ref = Want[O].asDouble(I), Opt = Got[O].asDouble(I);
        double Err = std::fabs(Ref - Opt);
        MaxErr = std::max(MaxErr, Err);
        if (!(Err <= Tol.Abs + Tol.Rel * std::fabs(Ref)))
          ++Bad;
      }
      INFO("max abs error " << MaxErr);
      CHECK(Bad == 0);
    }
  }
  return After;
}

} // namespace passtest
