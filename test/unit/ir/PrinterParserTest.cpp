// The printer and parser agree: print(parse(print(g))) == print(g) for
// graphs built in code, and exotic names and numbers survive a round trip.
#include "IR/FloatFormat.h"
#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Parser.h"
#include "IR/Printer.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kiln;

TEST_CASE("a graph built in code round-trips through text", "[ir][text]") {
  Graph G("built in code");
  Value *X = G.addInput(TensorType(ElementType::F32, {Dim::symbol("N"), Dim(4)}),
                        "input:0"); // needs quoting
  Value *W = G.createConstant(Tensor::fromValues<float>(
      ElementType::F32, makeShape({2, 4}),
      std::vector<float>{0.1f, -0.0f, 1e-30f, 3.4e38f, -1.5f, 2.f, 0.f, 1.f}));
  auto Lin = createInferred(G, "linear", {X, W});
  REQUIRE(bool(Lin));
  (*Lin)->setSources({"fc/Gemm \"quoted\""});
  G.addOutput((*Lin)->result());

  std::string Once = printGraphToString(G);
  CHECK(Once.find("graph @\"built in code\"(%\"input:0\": f32[N,4])") !=
        std::string::npos);
  CHECK(Once.find("loc(\"fc/Gemm \\\"quoted\\\"\")") != std::string::npos);
  CHECK(Once.find("dense[0.1, -0.0, 1e-30, 3.4e+38, -1.5, 2.0, 0.0, 1.0]") !=
        std::string::npos);
  auto Parsed = parseGraph(Once, "once.kir");
  REQUIRE(bool(Parsed));
  CHECK(printGraphToString(**Parsed) == Once);
  // The names survive, not just the text.
  CHECK((*Parsed)->input(0)->name() == "input:0");
  CHECK((*Parsed)->nodes().back().sources()[0] == "fc/Gemm \"quoted\"");
}

TEST_CASE("unnamed values are numbered without clashing with names",
          "[ir][text]") {
  Graph G;
  TensorType T(ElementType::F32, makeShape({2}));
  Value *X = G.addInput(T, "0"); // a name that looks like a number
  auto A = createInferred(G, "relu", {X});
  auto B = createInferred(G, "neg", {(*A)->result()});
  REQUIRE(bool(A));
  REQUIRE(bool(B));
  G.addOutput((*B)->result());
  std::string Text = printGraphToString(G);
  CHECK(Text == "graph @main(%0: f32[2]) -> (%2: f32[2]) {\n"
                "  %1 = relu(%0) : f32[2]\n"
                "  %2 = neg(%1) : f32[2]\n"
                "  return %2\n"
                "}\n");
}

TEST_CASE("floats print shortest and read back bit-exactly", "[ir][text]") {
  for (float V : {0.1f, 1.0f / 3.0f, 1e-45f, 3.4028235e38f, -2.5f, 100.0f,
                  std::numeric_limits<float>::infinity()}) {
    std::string S = formatFloat(V);
    INFO(S);
    CHECK(std::strtof(S.c_str(), nullptr) == V);
    CHECK(S.find_first_of(".eni") != std::string::npos); // never an int
  }
  CHECK(formatFloat(100.0f) == "100.0");
  CHECK(formatFloat(0.1f) == "0.1");
  CHECK(formatFloat(std::nanf("")) == "nan");
  CHECK(formatDouble(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("the sidecar aligns blobs to 64 bytes and de-duplicates",
          "[ir][text]") {
  WeightsSidecar S;
  std::string A(100, 'a'), B(10, 'b');
  CHECK(S.add(A, 1) == 0);
  CHECK(S.add(B, 2) == 128); // 100 rounded up to 64 * 2
  CHECK(S.add(A, 1) == 0);   // same content, same blob
  CHECK(S.bytes().size() == 138);
}

TEST_CASE("parse errors carry file:line:col", "[ir][text]") {
  auto G = parseGraph("graph @g() -> () {\n  %a = relu(\n", "bad.kir");
  REQUIRE_FALSE(bool(G));
  CHECK(toString(G.takeError()) ==
        "bad.kir:3:1: expected value (%name) for an operand, found end of "
        "file");
}
