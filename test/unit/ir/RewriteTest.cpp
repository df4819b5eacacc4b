// Rewrite helpers: replace-all-uses (including graph outputs), erase, and
// insertion / moving before and after a node.
#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Parser.h"
#include "IR/Printer.h"
#include "IR/Verifier.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

using namespace kiln;

static std::unique_ptr<Graph> parse(llvm::StringRef Text) {
  auto G = parseGraph(Text, "test.kir");
  if (!G)
    FAIL(toString(G.takeError()));
  return std::move(*G);
}

static std::vector<std::string> opNames(const Graph &G) {
  std::vector<std::string> Names;
  for (const Node &N : G.nodes())
    Names.push_back(N.opName().str());
  return Names;
}

TEST_CASE("replaceAllUsesWith rewires operands and graph outputs",
          "[ir][rewrite]") {
  auto G = parse(R"(graph @g(%x: f32[4]) -> (%r: f32[4], %n: f32[4]) {
  %r = relu(%x) : f32[4]
  %n = neg(%r) : f32[4]
  return %r, %n
})");
  Node &Relu = G->nodes().front();
  Value *X = G->input(0);
  G->replaceAllUsesWith(Relu.result(), X);
  CHECK_FALSE(Relu.result()->hasUses());
  CHECK(G->outputs()[0] == X);
  CHECK(G->nodes().back().operand(0) == X);
  G->erase(&Relu);
  CHECK(opNames(*G) == std::vector<std::string>{"neg"});
  REQUIRE_NO_ERROR(verifyGraph(*G));
  CHECK(X->numUses() == 1);
}

TEST_CASE("createInferred inserts before a node and infers types",
          "[ir][rewrite]") {
  auto G = parse(R"(graph @g(%x: f32[2,3]) -> (%y: f32[2,3]) {
  %y = neg(%x) : f32[2,3]
  return %y
})");
  Node *Neg = &G->nodes().front();
  auto Relu = createInferred(*G, "relu", {G->input(0)}, {}, 1, Neg);
  REQUIRE(bool(Relu));
  CHECK(toString((*Relu)->result()->type()) == "f32[2,3]");
  Neg->setOperand(0, (*Relu)->result());
  CHECK(opNames(*G) == std::vector<std::string>{"relu", "neg"});
  REQUIRE_NO_ERROR(verifyGraph(*G));

  auto T = createInferred(*G, "transpose", {G->input(0)}, {}, 1, nullptr);
  REQUIRE(bool(T));
  CHECK(toString((*T)->result()->type()) == "f32[3,2]");
  G->moveBefore(*T, Neg);
  CHECK(opNames(*G) == std::vector<std::string>{"relu", "transpose", "neg"});
  G->moveAfter(*T, Neg);
  CHECK(opNames(*G) == std::vector<std::string>{"relu", "neg", "transpose"});
}

TEST_CASE("createInferred rejects bad nodes and leaves the graph untouched",
          "[ir][rewrite]") {
  auto G = parse(R"(graph @g(%x: f32[2,3], %i: i64[3]) -> (%y: f32[2,3]) {
  %y = neg(%x) : f32[2,3]
  return %y
})");
  size_t Before = G->numNodes();
  auto Bad = createInferred(*G, "add", {G->input(0), G->input(1)});
  REQUIRE_FALSE(bool(Bad));
  CHECK(toString(Bad.takeError()) ==
        "op 'add': operands must share an element type, got f32 and i64");
  auto Unknown = createInferred(*G, "frobnicate", {G->input(0)});
  REQUIRE_FALSE(bool(Unknown));
  CHECK(toString(Unknown.takeError()) == "unknown op 'frobnicate'");
  CHECK(G->numNodes() == Before);
  CHECK(G->input(0)->numUses() == 1);
  REQUIRE_NO_ERROR(verifyGraph(*G));
}
