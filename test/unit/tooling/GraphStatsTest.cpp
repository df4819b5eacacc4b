// Graph statistics (`kiln inspect`, `kiln diff`): op histogram, parameters
// by element type and multiply-accumulates, on graphs small enough to count
// by hand.
#include "Tooling/GraphStats.h"

#include "IR/Parser.h"
#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kiln;

namespace {

/// dense[V, V, ...] with N values.
std::string dense(int N, const char *V) {
  std::string S = "dense[";
  for (int I = 0; I < N; ++I)
    S += std::string(I ? ", " : "") + V;
  return S + "]";
}

const std::string ConvNet =
    "graph @g(%x: f32[1,2,5,5]) -> (%y: f32[1,4]) {\n"
    "  %w = const f32[3,2,3,3] " + dense(54, "0.5") + "\n"
    "  %b = const f32[3] dense[1.0, 2.0, 3.0]\n"
    "  %c = conv(%x, %w, %b) {pads=[1,1,1,1]} : f32[1,3,5,5]\n"
    "  %p = global_avg_pool(%c) : f32[1,3,1,1]\n"
    "  %f = flatten(%p) {axis=1} : f32[1,3]\n"
    "  %lw = const f32[4,3] " + dense(12, "0.25") + "\n"
    "  %y = linear(%f, %lw) : f32[1,4]\n"
    "  return %y\n"
    "}\n";

} // namespace

TEST_CASE("op histogram and parameters of a small conv net", "[tooling]") {
  auto G = requireValue(parseGraph(ConvNet, "net.kir"));
  GraphStats S = computeGraphStats(*G);
  CHECK(S.OpHistogram.size() == 4);
  CHECK(S.OpHistogram.at("conv") == 1);
  CHECK(S.OpHistogram.at("linear") == 1);
  CHECK(S.OpHistogram.count("const") == 0);
  // 3*2*3*3 = 54 conv weights + 3 biases + 4*3 = 12 linear weights.
  REQUIRE(S.ParamsByType.count("f32"));
  CHECK(S.ParamsByType.at("f32").Count == 69);
  CHECK(S.ParamsByType.at("f32").Bytes == 69 * 4);
}

TEST_CASE("multiply-accumulates by hand", "[tooling]") {
  auto G = requireValue(parseGraph(ConvNet, "net.kir"));
  GraphStats S = computeGraphStats(*G);
  REQUIRE(S.Nodes.size() == 4);
  // conv: 1*3*5*5 = 75 outputs, each 2*3*3 = 18 products -> 1350.
  CHECK(S.Nodes[0].N->opName() == "conv");
  CHECK(S.Nodes[0].Macs == 1350);
  CHECK(S.Nodes[0].Params == 57);
  // global_avg_pool: one per input element, 3*5*5 = 75.
  CHECK(S.Nodes[1].Macs == 75);
  // flatten: not counted.
  CHECK(S.Nodes[2].Macs == 0);
  // linear: 1*4 outputs, K = 3 -> 12.
  CHECK(S.Nodes[3].Macs == 12);
  CHECK(S.TotalMacs == 1350 + 75 + 12);
}

TEST_CASE("symbolic dims count as 1", "[tooling]") {
  auto G = requireValue(parseGraph(R"(graph @g(%x: f32[N,8]) -> (%y: f32[N,2]) {
  %w = const f32[2,8] dense[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
                           1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
  %y = linear(%x, %w) : f32[N,2]
  return %y
}
)",
                                   "dyn.kir"));
  GraphStats S = computeGraphStats(*G);
  REQUIRE(S.Nodes.size() == 1);
  CHECK(S.Nodes[0].Macs == 2 * 8); // N -> 1
}
