// The verifier catches what a buggy pass could leave behind: dangling
// operands, out-of-order nodes, stale types, bad attributes.
#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Parser.h"
#include "IR/Verifier.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

using namespace kiln;

static std::unique_ptr<Graph> chain() {
  auto G = parseGraph(R"(graph @g(%x: f32[4]) -> (%b: f32[4]) {
  %a = relu(%x) : f32[4] loc("relu_1")
  %b = neg(%a) : f32[4] loc("neg_1")
  return %b
})",
                      "g.kir");
  REQUIRE(bool(G));
  return std::move(*G);
}

TEST_CASE("a valid graph verifies", "[ir][verifier]") {
  REQUIRE_NO_ERROR(verifyGraph(*chain()));
}

TEST_CASE("out-of-order nodes are reported", "[ir][verifier]") {
  auto G = chain();
  Node *A = &G->nodes().front();
  G->moveAfter(A, &G->nodes().back());
  llvm::Error E = verifyGraph(*G);
  REQUIRE(bool(E));
  CHECK(toString(std::move(E)) ==
        "node 'neg_1' (neg): operand 0 is not defined before this node "
        "(dangling or out of topological order)");
}

TEST_CASE("a stale result type is reported with both types",
          "[ir][verifier]") {
  auto G = chain();
  G->nodes().back().result()->setType(TensorType(ElementType::F32, makeShape({5})));
  llvm::Error E = verifyGraph(*G);
  REQUIRE(bool(E));
  CHECK(toString(std::move(E)) ==
        "node 'neg_1' (neg): result 0 is declared f32[5] but the operands "
        "give f32[4]");
}

TEST_CASE("bad attributes are reported by name and kind", "[ir][verifier]") {
  auto G = chain();
  Node &Relu = G->nodes().front();
  Relu.setAttr("alpha", 0.5);
  Node &Neg = G->nodes().back();
  Neg.setAttr("axis", std::string("zero"));
  llvm::Error E = verifyGraph(*G);
  REQUIRE(bool(E));
  // Every problem is listed, one per line.
  CHECK(toString(std::move(E)) ==
        "node 'relu_1' (relu): has no attribute 'alpha'\n"
        "node 'neg_1' (neg): has no attribute 'axis'");
}

TEST_CASE("a missing required operand is reported", "[ir][verifier]") {
  auto G = chain();
  G->nodes().back().setOperand(0, nullptr);
  llvm::Error E = verifyGraph(*G);
  REQUIRE(bool(E));
  CHECK(toString(std::move(E)) ==
        "node 'neg_1' (neg): operand 0 ('x') is required but absent");
}

TEST_CASE("a graph output that is not defined is reported", "[ir][verifier]") {
  auto G = chain();
  Graph Other;
  Value *Foreign = Other.addInput(TensorType(ElementType::F32, makeShape({4})), "f");
  G->setOutput(0, Foreign);
  llvm::Error E = verifyGraph(*G);
  REQUIRE(bool(E));
  CHECK(toString(std::move(E)) ==
        "graph output 0 is not a value defined in the graph");
}
