// Equivalence tests for the fusion passes (fuse-conv-bn, fuse-conv-scale,
// fold-pad-into-conv, fuse-activation, fuse-add-activation): the reference
// interpreter runs each graph before and after the pass on seeded inputs.
// Folding weights rounds w·s once to f32 where the unfused graph rounds the
// conv and then the BN, so those passes get a small explicit tolerance;
// moving an activation or a pad computes the same floats and must be exact.
#include "PassEquivalence.h"

#include <catch2/catch.hpp>

using namespace passtest;

namespace {

/// Sums of up to ~60 products of values in [-2, 2], rounded differently.
const Tolerance FoldTol = {1e-4, 1e-5};
const Tolerance Exact = {0.0, 0.0};

/// "  %NAME = const f32[SHAPE] dense[...]\n" with Count seeded values.
std::string constant(std::mt19937 &Rng, const std::string &Name,
                     const std::string &Shape, int64_t Count, double Lo = -1.0,
                     double Hi = 1.0) {
  return "  %" + Name + " = const f32[" + Shape + "] " +
         randomDense(Rng, Count, Lo, Hi) + "\n";
}

/// %Pg, %Pb, %Pm, %Pv: γ, β, μ and σ² (> 0) of a BatchNorm over C channels.
std::string bnParams(std::mt19937 &Rng, const std::string &P, int64_t C) {
  std::string S = std::to_string(C);
  return constant(Rng, P + "g", S, C, 0.5, 2.0) + constant(Rng, P + "b", S, C) +
         constant(Rng, P + "m", S, C) + constant(Rng, P + "v", S, C, 0.1, 2.0);
}

} // namespace

TEST_CASE("fuse-conv-bn keeps outputs", "[passes][fuse-conv-bn]") {
  std::mt19937 Rng(21);
  std::string Kir =
      "graph @g(%x: f32[2,4,7,7], %v: f32[3,5]) -> (%y1: f32[2,6,4,4], "
      "%y2: f32[2,6,15,15], %y3: f32[3,4], %y4: f32[3,4], %y5: f32[3,4]) {\n" +
      // conv, group 2, stride 2, asymmetric pads, with bias.
      constant(Rng, "w1", "6,2,3,3", 108) + constant(Rng, "b1", "6", 6) +
      bnParams(Rng, "p1", 6) +
      "  %c1 = conv(%x, %w1, %b1) {strides=[2, 2], pads=[2, 1, 0, 1], "
      "group=2} : f32[2,6,4,4]\n"
      "  %y1 = batch_norm(%c1, %p1g, %p1b, %p1m, %p1v) {epsilon=0.001} : "
      "f32[2,6,4,4]\n" +
      // conv_transpose, group 2: weight [4, 3, 3, 3], 6 output channels.
      constant(Rng, "wt", "4,3,3,3", 108) + bnParams(Rng, "p2", 6) +
      "  %c2 = conv_transpose(%x, %wt) {strides=[2, 2], group=2} : "
      "f32[2,6,15,15]\n"
      "  %y2 = batch_norm(%c2, %p2g, %p2b, %p2m, %p2v) : f32[2,6,15,15]\n" +
      // linear + BatchNorm1d.
      constant(Rng, "lw", "4,5", 20) + constant(Rng, "lb", "4", 4) +
      bnParams(Rng, "p3", 4) +
      "  %c3 = linear(%v, %lw, %lb) : f32[3,4]\n"
      "  %y3 = batch_norm(%c3, %p3g, %p3b, %p3m, %p3v) : f32[3,4]\n" +
      // gemm with trans_b, alpha, beta and a row c; gemm without c.
      constant(Rng, "gb", "4,5", 20) + constant(Rng, "gc", "1,4", 4) +
      "  %c4 = gemm(%v, %gb, %gc) {alpha=1.5, beta=0.5, trans_b=1} : "
      "f32[3,4]\n"
      "  %y4 = batch_norm(%c4, %p3g, %p3b, %p3m, %p3v) : f32[3,4]\n" +
      constant(Rng, "gk", "5,4", 20) +
      "  %c5 = gemm(%v, %gk) : f32[3,4]\n"
      "  %y5 = batch_norm(%c5, %p3g, %p3b, %p3m, %p3v) {epsilon=0.1} : "
      "f32[3,4]\n"
      "  return %y1, %y2, %y3, %y4, %y5\n}\n";
  auto G = checkEquivalent(Kir, {"fuse-conv-bn"}, FoldTol);
  CHECK(countOps(*G, "batch_norm") == 0);
}

TEST_CASE("fuse-conv-scale keeps outputs", "[passes][fuse-conv-scale]") {
  std::mt19937 Rng(22);
  std::string Kir =
      "graph @g(%x: f32[2,4,6,6], %v: f32[3,5]) -> (%y1: f32[2,6,6,6], "
      "%y2: f32[2,6,11,11], %y3: f32[3,4]) {\n" +
      // conv → ·[1,C,1,1] → +[C,1,1] → −scalar (three rounds).
      constant(Rng, "w1", "6,4,1,3", 72) + constant(Rng, "b1", "6", 6) +
      constant(Rng, "k1", "1,6,1,1", 6, 0.5, 2.0) +
      constant(Rng, "a1", "6,1,1", 6) + constant(Rng, "s1", "", 1) +
      "  %c1 = conv(%x, %w1, %b1) {pads=[0, 1, 0, 1]} : f32[2,6,6,6]\n"
      "  %m1 = mul(%k1, %c1) : f32[2,6,6,6]\n"
      "  %a = add(%m1, %a1) : f32[2,6,6,6]\n"
      "  %y1 = sub(%a, %s1) : f32[2,6,6,6]\n" +
      // conv_transpose with groups, divided per channel.
      constant(Rng, "wt", "4,3,3,3", 108) +
      constant(Rng, "d2", "6,1,1", 6, 0.5, 2.0) +
      "  %c2 = conv_transpose(%x, %wt) {strides=[2, 2], pads=[1, 1, 1, 1], "
      "group=2} : f32[2,6,11,11]\n"
      "  %y2 = div(%c2, %d2) : f32[2,6,11,11]\n" +
      // linear: per channel along the last axis.
      constant(Rng, "lw", "4,5", 20) + constant(Rng, "k3", "4", 4) +
      "  %c3 = linear(%v, %lw) : f32[3,4]\n"
      "  %y3 = mul(%c3, %k3) : f32[3,4]\n"
      "  return %y1, %y2, %y3\n}\n";
  auto G = checkEquivalent(Kir, {"fuse-conv-scale"}, FoldTol);
  for (const char *Op : {"mul", "add", "sub", "div"})
    CHECK(countOps(*G, Op) == 0);
}

TEST_CASE("fold-pad-into-conv keeps outputs", "[passes][fold-pad-into-conv]") {
  std::mt19937 Rng(23);
  std::string Kir =
      "graph @g(%x: f32[2,3,7,8], %s: f32[1,2,9]) -> (%y1: f32[2,4,3,4], "
      "%y2: f32[1,2,5]) {\n" +
      constant(Rng, "w", "4,3,3,3", 108) +
      "  %p = const i64[8] dense[0, 0, 2, 1, 0, 0, 0, 3]\n"
      "  %zero = const f32[] dense[0.0]\n"
      "  %pad = pad(%x, %p, %zero) : f32[2,3,9,12]\n"
      "  %y1 = conv(%pad, %w) {strides=[2, 3], pads=[1, 0, 0, 1], "
      "dilations=[2, 1]} : f32[2,4,3,4]\n" +
      constant(Rng, "w1", "2,2,3", 12) +
      "  %p1 = const i64[6] dense[0, 0, 1, 0, 0, 2]\n"
      "  %pad1 = pad(%s, %p1) : f32[1,2,12]\n"
      "  %y2 = conv(%pad1, %w1) {strides=[2]} : f32[1,2,5]\n"
      "  return %y1, %y2\n}\n";
  auto G = checkEquivalent(Kir, {"fold-pad-into-conv"}, Exact);
  CHECK(countOps(*G, "pad") == 0);
}

TEST_CASE("fuse-activation keeps outputs", "[passes][fuse-activation]") {
  std::mt19937 Rng(24);
  std::string Kir =
      "graph @g(%x: f32[2,3,5,5], %v: f32[3,5]) -> (%y1: f32[2,4,5,5], "
      "%y2: f32[2,4,11,11], %y3: f32[3,4], %y4: f32[3,4], %y5: f32[3,4], "
      "%y6: f32[2,4,5,5]) {\n" +
      constant(Rng, "w", "4,3,3,3", 108) + constant(Rng, "b", "4", 4) +
      constant(Rng, "wt", "3,4,3,3", 108) + constant(Rng, "lw", "4,5", 20) +
      constant(Rng, "k", "5,4", 20) +
      "  %lo = const f32[] dense[-0.5]\n"
      "  %hi = const f32[] dense[0.75]\n"
      "  %c1 = conv(%x, %w, %b) {pads=[1, 1, 1, 1]} : f32[2,4,5,5]\n"
      "  %y1 = relu(%c1) : f32[2,4,5,5]\n"
      "  %c2 = conv_transpose(%x, %wt) {strides=[2, 2]} : f32[2,4,11,11]\n"
      "  %y2 = hard_swish(%c2) : f32[2,4,11,11]\n"
      "  %c3 = linear(%v, %lw) : f32[3,4]\n"
      "  %y3 = clip(%c3) {min=0.0, max=0.5} : f32[3,4]\n"
      "  %c4 = gemm(%v, %lw) {trans_b=1} : f32[3,4]\n"
      "  %y4 = leaky_relu(%c4) {alpha=0.2} : f32[3,4]\n"
      "  %c5 = matmul(%v, %k) : f32[3,4]\n"
      "  %y5 = clip(%c5, %lo, %hi) : f32[3,4]\n"
      "  %c6 = conv(%x, %w, %b) {pads=[1, 1, 1, 1]} : f32[2,4,5,5]\n"
      "  %y6 = clip(%c6) {min=-0.25} : f32[2,4,5,5]\n"
      "  return %y1, %y2, %y3, %y4, %y5, %y6\n}\n";
  auto G = checkEquivalent(Kir, {"fuse-activation"}, Exact);
  for (const char *Op : {"relu", "hard_swish", "clip", "leaky_relu"})
    CHECK(countOps(*G, Op) == 0);
}

TEST_CASE("fuse-add-activation keeps outputs",
          "[passes][fuse-add-activation]") {
  std::string Kir = R"(graph @g(%x: f32[2,3,4,4], %r: f32[1,3,1,1]) -> (%y1: f32[2,3,4,4], %y2: f32[2,3,4,4]) {
  %a1 = add(%x, %r) : f32[2,3,4,4]
  %y1 = relu(%a1) : f32[2,3,4,4]
  %a2 = add(%r, %x) : f32[2,3,4,4]
  %y2 = clip(%a2) {min=0.0, max=1.5} : f32[2,3,4,4]
  return %y1, %y2
})";
  auto G = checkEquivalent(Kir, {"fuse-add-activation"}, Exact);
  CHECK(countOps(*G, "relu") == 0);
  CHECK(countOps(*G, "clip") == 0);
}

TEST_CASE("the fusion passes compose in pipeline order",
          "[passes][fusion]") {
  // pad → conv → BN → relu6, → ·k + a, then a residual add + relu.
  std::mt19937 Rng(25);
  std::string Kir =
      "graph @g(%x: f32[1,4,6,6]) -> (%y: f32[1,4,6,6]) {\n" +
      constant(Rng, "w1", "4,4,3,3", 144) + bnParams(Rng, "p", 4) +
      constant(Rng, "w2", "4,1,3,3", 36) +
      constant(Rng, "k", "1,4,1,1", 4, 0.5, 2.0) +
      constant(Rng, "a", "4,1,1", 4) +
      "  %pads = const i64[8] dense[0, 0, 1, 1, 0, 0, 1, 1]\n"
      "  %pad = pad(%x, %pads) : f32[1,4,8,8]\n"
      "  %c1 = conv(%pad, %w1) : f32[1,4,6,6]\n"
      "  %bn = batch_norm(%c1, %pg, %pb, %pm, %pv) : f32[1,4,6,6]\n"
      "  %r6 = clip(%bn) {min=0.0, max=6.0} : f32[1,4,6,6]\n"
      "  %c2 = conv(%r6, %w2) {pads=[1, 1, 1, 1], group=4} : f32[1,4,6,6]\n"
      "  %m = mul(%c2, %k) : f32[1,4,6,6]\n"
      "  %s = add(%m, %a) : f32[1,4,6,6]\n"
      "  %sum = add(%s, %x) : f32[1,4,6,6]\n"
      "  %y = relu(%sum) : f32[1,4,6,6]\n"
      "  return %y\n}\n";
  auto G = checkEquivalent(Kir,
                           {"fold-pad-into-conv", "fuse-conv-bn",
                            "fuse-conv-scale", "fuse-activation",
                            "fuse-add-activation"},
                           FoldTol);
  for (const char *Op : {"pad", "batch_norm", "clip", "mul", "relu"})
    CHECK(countOps(*G, Op) == 0);
  CHECK(countOps(*G, "conv") == 2);
  CHECK(countOps(*G, "add") == 1);
}
