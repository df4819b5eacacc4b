// Type and shape inference, checked against hand-computed shapes.
#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "IR/Parser.h"
#include "IR/ShapeInference.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

using namespace kiln;

/// Builds a one-node graph from a .kir body and returns the inferred type of
/// result 0 as text, or the error message.
static std::string inferred(llvm::StringRef Inputs, llvm::StringRef Consts,
                            llvm::StringRef NodeText) {
  std::string Src = "graph @g(" + Inputs.str() + ") -> () {\n" + Consts.str() +
                    "\n  %r = " + NodeText.str() + " : f32[]\n  return\n}\n";
  auto G = parseGraph(Src, "t.kir");
  if (G)
    return "<declared type accepted?>";
  // The declared f32[] never matches; the verifier's message carries the
  // inferred type: "... but the operands give TYPE".
  std::string Msg = toString(G.takeError());
  auto Pos = Msg.find("the operands give ");
  if (Pos == std::string::npos)
    return Msg;
  return Msg.substr(Pos + 18);
}

TEST_CASE("conv output size", "[ir][inference]") {
  // (224 + 1 + 1 - 3) / 2 + 1 = 112
  CHECK(inferred("%x: f32[N,3,224,224], %w: f32[32,3,3,3]", "",
                 "conv(%x, %w) {strides=[2, 2], pads=[1, 1, 1, 1]}") ==
        "f32[N,32,112,112]");
  // dilation 2: effective kernel 5; (10 - 5) / 1 + 1 = 6; depthwise groups
  CHECK(inferred("%x: f32[1,8,10,10], %w: f32[8,1,3,3]", "",
                 "conv(%x, %w) {dilations=[2, 2], group=8}") == "f32[1,8,6,6]");
  CHECK(inferred("%x: f32[1,6,10,10], %w: f32[8,3,3,3]", "",
                 "conv(%x, %w) {group=4}") ==
        "t.kir:3:3: node '%r' (conv): input has 6 channels but weight expects "
        "3 x group 4");
}

TEST_CASE("pooling with ceil mode", "[ir][inference]") {
  // floor((5 - 2) / 2) + 1 = 2; ceil mode adds the window starting at 4 < 5.
  CHECK(inferred("%x: f32[1,1,5,5]", "",
                 "max_pool(%x) {kernel=[2, 2], strides=[2, 2]}") ==
        "f32[1,1,2,2]");
  CHECK(inferred("%x: f32[1,1,5,5]", "",
                 "max_pool(%x) {kernel=[2, 2], strides=[2, 2], ceil_mode=1}") ==
        "f32[1,1,3,3]");
}

TEST_CASE("broadcasting", "[ir][inference]") {
  CHECK(inferred("%a: f32[N,3,1,5], %b: f32[4,1]", "", "add(%a, %b)") ==
        "f32[N,3,4,5]");
  CHECK(inferred("%a: f32[2,3], %b: f32[4]", "", "mul(%a, %b)") ==
        "t.kir:3:3: node '%r' (mul): shapes [2,3] and [4] do not broadcast");
  auto Sizes = broadcastSizes({8, 1, 6, 1}, {7, 1, 5});
  REQUIRE(Sizes);
  CHECK(*Sizes == std::vector<int64_t>{8, 7, 6, 5});
  CHECK_FALSE(broadcastSizes({3}, {4}));
}

TEST_CASE("reshape with 0 and -1", "[ir][inference]") {
  // [2,3,4] -> [0, -1]: 0 copies 2, -1 = 24 / 2 = 12
  CHECK(inferred("%x: f32[2,3,4]", "  %s = const i64[2] dense[0, -1]",
                 "reshape(%x, %s)") == "f32[2,12]");
  CHECK(inferred("%x: f32[2,3,4]", "  %s = const i64[2] dense[5, -1]",
                 "reshape(%x, %s)") ==
        "t.kir:3:3: node '%r' (reshape): cannot reshape [2,3,4] into [5,?]");
  // A dynamic shape operand: only the rank is known.
  CHECK(inferred("%x: f32[2,3,4], %s: i64[3]", "", "reshape(%x, %s)") ==
        "f32[?,?,?]");
}

TEST_CASE("reshape keeps a symbolic batch", "[ir][inference]") {
  // x.view(-1, 12) of [N,3,2,2]: the -1 is N.
  CHECK(inferred("%x: f32[N,3,2,2]", "  %s = const i64[2] dense[-1, 12]",
                 "reshape(%x, %s)") == "f32[N,12]");
  // [N,3,2,2] -> [0, -1]: 0 copies N, -1 = 12.
  CHECK(inferred("%x: f32[N,3,2,2]", "  %s = const i64[2] dense[0, -1]",
                 "reshape(%x, %s)") == "f32[N,12]");
  // [N,3] -> [-1] is 3N, which a dim cannot say.
  CHECK(inferred("%x: f32[N,3]", "  %s = const i64[1] dense[-1]",
                 "reshape(%x, %s)") == "f32[?]");
  // x.view(x.size(0), -1): the target is computed from x's own shape.
  CHECK(inferred("%x: f32[N,3,2,2]",
                 "  %sh = shape(%x) : i64[4]\n"
                 "  %k = const i64[] dense[0]\n"
                 "  %n = gather(%sh, %k) {axis=0} : i64[]\n"
                 "  %ax = const i64[1] dense[0]\n"
                 "  %n1 = unsqueeze(%n, %ax) : i64[1]\n"
                 "  %m1 = const i64[1] dense[-1]\n"
                 "  %s = concat(%n1, %m1) {axis=0} : i64[2]",
                 "reshape(%x, %s)") == "f32[N,12]");
  // Two unknown entries: only the rank.
  CHECK(inferred("%x: f32[N,3,2,2], %t: i64[1]",
                 "  %m1 = const i64[1] dense[-1]\n"
                 "  %s = concat(%t, %m1) {axis=0} : i64[2]",
                 "reshape(%x, %s)") == "f32[?,?]");
}

TEST_CASE("slice, transpose, concat, matmul, gemm", "[ir][inference]") {
  // axis 1: [1, -1) of 10 with step 2 -> 1,3,5,7 = 4 elements
  CHECK(inferred("%x: f32[3,10]",
                 "  %s = const i64[1] dense[1]\n  %e = const i64[1] dense[-1]\n"
                 "  %a = const i64[1] dense[1]\n  %t = const i64[1] dense[2]",
                 "slice(%x, %s, %e, %a, %t)") == "f32[3,4]");
  // negative step: from 8 down to (not including) 1 with step -3: 8,5,2
  CHECK(inferred("%x: f32[10]",
                 "  %s = const i64[1] dense[8]\n  %e = const i64[1] dense[1]\n"
                 "  %a = const i64[1] dense[0]\n  %t = const i64[1] dense[-3]",
                 "slice(%x, %s, %e, %a, %t)") == "f32[3]");
  CHECK(inferred("%x: f32[2,3,4]", "", "transpose(%x)") == "f32[4,3,2]");
  CHECK(inferred("%x: f32[2,3,4], %y: f32[2,5,4]", "",
                 "concat(%x, %y) {axis=-2}") == "f32[2,8,4]");
  CHECK(inferred("%a: f32[7,1,2,3], %b: f32[5,3,4]", "", "matmul(%a, %b)") ==
        "f32[7,5,2,4]");
  CHECK(inferred("%a: f32[3], %b: f32[3,4]", "", "matmul(%a, %b)") ==
        "f32[4]");
  CHECK(inferred("%a: f32[3,5], %b: f32[4,3]", "",
                 "gemm(%a, %b) {trans_a=1, trans_b=1}") == "f32[5,4]");
}

TEST_CASE("reductions and arg-reductions", "[ir][inference]") {
  CHECK(inferred("%x: f32[2,3,4]", "  %a = const i64[2] dense[0, -1]",
                 "reduce_sum(%x, %a) {keepdims=0}") == "f32[3]");
  CHECK(inferred("%x: f32[2,3,4]", "", "reduce_max(%x)") == "f32[1,1,1]");
  CHECK(inferred("%x: f32[2,3,4]", "", "argmax(%x) {axis=-1, keepdims=0}") ==
        "i64[2,3]");
}
