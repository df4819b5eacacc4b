// The quantize rewrites against references computed independently here:
// insert-qdq against int8 fake quantization written out with the textbook
// formulas; dynamic_quantize against the ONNX DynamicQuantizeLinear example;
// and fp16 / dynamic int8 against the float graph (SQNR bounds).
#include "Interpreter/Interpreter.h"
#include "IR/Parser.h"
#include "IR/Verifier.h"
#include "passes/PassManager.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

using namespace kiln;

namespace {
std::unique_ptr<Graph> parse(const std::string &Kir) {
  return requireValue(parseGraph(Kir, "t.kir"));
}

void runPass(Graph &G, const std::string &Name) {
  PassManagerOptions O;
  O.VerifyEach = true;
  PassManager PM(O);
  REQUIRE_NO_ERROR(PM.add(Name));
  REQUIRE_NO_ERROR(PM.run(G));
}

std::vector<float> run(const Graph &G, const std::vector<Tensor> &In) {
  Interpreter I(G);
  std::vector<Tensor> Out = requireValue(I.run(In));
  std::vector<float> V;
  for (int64_t K = 0; K < Out[0].numElements(); ++K)
    V.push_back(Out[0].at<float>(K));
  return V;
}

std::string dense(const std::vector<float> &V) {
  std::string S = "dense[";
  char Buf[32];
  for (size_t I = 0; I < V.size(); ++I) {
    std::snprintf(Buf, sizeof(Buf), "%s%.9g", I ? ", " : "", double(V[I]));
    S += Buf;
  }
  return S + "]";
}

std::vector<float> uniform(std::mt19937 &Rng, size_t N, float Lo, float Hi) {
  std::uniform_real_distribution<float> D(Lo, Hi);
  std::vector<float> V(N);
  for (float &F : V)
    F = D(Rng);
  return V;
}

double sqnrDb(const std::vector<float> &Ref, const std::vector<float> &Got) {
  double S = 0, N = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    S += double(Ref[I]) * Ref[I];
    N += (double(Ref[I]) - Got[I]) * (double(Ref[I]) - Got[I]);
  }
  return 10 * std::log10(S / N);
}

/// q = clamp(round_half_even(x / s) + z, lo, hi), back to (q - z) * s.
double fakeQuant(double X, double S, long Z, long Lo, long Hi) {
  long Q = std::lrint(X / S) + Z;
  return double(std::clamp(Q, Lo, Hi) - Z) * S;
}
} // namespace

TEST_CASE("insert-qdq computes int8 fake quantization exactly",
          "[quant][qdq]") {
  std::mt19937 Rng(17);
  std::vector<float> W = uniform(Rng, 12, -1.0f, 1.0f);
  std::vector<float> B = {0.3f, -0.2f, 0.05f};
  std::vector<float> WS;
  for (int C = 0; C < 3; ++C) {
    float M = 0;
    for (int K = 0; K < 4; ++K)
      M = std::max(M, std::fabs(W[size_t(C * 4 + K)]));
    WS.push_back(float(double(M) / 127.0));
  }
  std::string Kir =
      "graph @l(%x: f32[2,4] q(scale=0.05, zp=-3)) -> (%y: f32[2,3] "
      "q(scale=0.04, zp=-128)) {\n  %w = const f32[3,4] q(axis=0, scale=" +
      dense(WS).substr(5) + ", zp=[0, 0, 0]) " + dense(W) +
      "\n  %b = const f32[3] " + dense(B) +
      "\n  %y = linear(%x, %w, %b) {activation=\"relu\"} : f32[2,3] "
      "q(scale=0.04, zp=-128)\n  return %y\n}";
  auto G = parse(Kir);
  runPass(*G, "insert-qdq");
  for (int Trial = 0; Trial < 20; ++Trial) {
    std::vector<float> X = uniform(Rng, 8, -7.0f, 7.0f); // some saturate
    std::vector<float> Got =
        run(*G, {Tensor::fromValues<float>(ElementType::F32, makeShape({2, 4}), X)});
    for (int R = 0; R < 2; ++R)
      for (int C = 0; C < 3; ++C) {
        double BS = double(0.05f * WS[size_t(C)]);
        double Acc = fakeQuant(B[size_t(C)], BS, 0, INT32_MIN, INT32_MAX);
        for (int K = 0; K < 4; ++K)
          Acc += fakeQuant(X[size_t(R * 4 + K)], 0.05f, -3, -128, 127) *
                 fakeQuant(W[size_t(C * 4 + K)], WS[size_t(C)], 0, -127, 127);
        double Want = fakeQuant(std::max(Acc, 0.0), 0.04f, -128, -128, 127);
        CHECK(std::fabs(Got[size_t(R * 3 + C)] - Want) < 1e-6);
      }
  }
}

TEST_CASE("dynamic_quantize follows ONNX DynamicQuantizeLinear",
          "[quant][dynamic]") {
  // The ONNX operator documentation's example: scale 5/255, zero point 153.
  for (const char *To : {"u8", "i8"}) {
    std::string E = To;
    auto G = parse("graph @d(%x: f32[6]) -> (%y: " + E + "[6], %s: f32[], %z: " +
                   E + "[]) {\n  %y, %s, %z = dynamic_quantize(%x) {to=\"" + E +
                   "\"} : " + E + "[6], f32[], " + E + "[]\n  return %y, %s, %z\n}");
    std::vector<float> X = {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f};
    Interpreter I(*G);
    auto Out = requireValue(
        I.run({Tensor::fromValues<float>(ElementType::F32, makeShape({6}), X)}));
    CHECK(Out[1].at<float>(0) == float(5.0 / 255.0));
    std::vector<int64_t> Y;
    for (int K = 0; K < 6; ++K)
      Y.push_back(Out[0].asInt(K));
    if (E == "u8") {
      CHECK(Out[2].asInt(0) == 153);
      CHECK(Y == std::vector<int64_t>{153, 255, 0, 26, 221, 179});
    } else {
      CHECK(Out[2].asInt(0) == 25);
      CHECK(Y == std::vector<int64_t>{25, 127, -128, -102, 93, 51});
    }
  }
}

TEST_CASE("fp16 and dynamic int8 stay close to the float graph",
          "[quant][equivalence]") {
  std::mt19937 Rng(3);
  std::string Kir = "graph @m(%x: f32[1,3,8,8]) -> (%y: f32[1,5]) {\n"
                    "  %w = const f32[8,3,3,3] " + dense(uniform(Rng, 216, -0.5f, 0.5f)) +
                    "\n  %b = const f32[8] " + dense(uniform(Rng, 8, -0.1f, 0.1f)) +
                    "\n  %c = conv(%x, %w, %b) {pads=[1,1,1,1], activation=\"relu\"} : f32[1,8,8,8]"
                    "\n  %g = global_avg_pool(%c) : f32[1,8,1,1]"
                    "\n  %f = flatten(%g) : f32[1,8]"
                    "\n  %lw = const f32[5,8] " + dense(uniform(Rng, 40, -1.0f, 1.0f)) +
                    "\n  %y = linear(%f, %lw) : f32[1,5]\n  return %y\n}";
  auto Float = parse(Kir);
  auto Half = parse(Kir);
  auto Dyn = parse(Kir);
  runPass(*Half, "convert-weights-f16");
  runPass(*Dyn, "quantize-dynamic-int8");
  std::vector<float> Ref, GotHalf, GotDyn;
  for (int Trial = 0; Trial < 8; ++Trial) {
    std::vector<Tensor> In = {Tensor::fromValues<float>(
        ElementType::F32, makeShape({1, 3, 8, 8}), uniform(Rng, 192, -2.0f, 2.0f))};
    for (auto [G, Out] : {std::pair{Float.get(), &Ref}, {Half.get(), &GotHalf},
                          {Dyn.get(), &GotDyn}}) {
      std::vector<float> V = run(*G, In);
      Out->insert(Out->end(), V.begin(), V.end());
    }
  }
  // f16 rounding is 2^-11 relative per weight: ~66 dB; dynamic int8 rounds
  // activations and weights at 8 bits: one rounding is ~40 dB here.
  CHECK(sqnrDb(Ref, GotHalf) > 60.0);
  CHECK(sqnrDb(Ref, GotDyn) > 30.0);
  CHECK(sqnrDb(Ref, GotDyn) < 60.0); // it did quantize
}
