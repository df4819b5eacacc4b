// Equivalence tests for the cleanup passes (fold-constants, cse,
// eliminate-noops, remove-dropout, canonicalize): outputs before and after
// the pass agree on seeded inputs, and the pass did what it is for.
#include "PassEquivalence.h"

#include <catch2/catch.hpp>

using namespace passtest;

TEST_CASE("fold-constants keeps outputs", "[passes][fold-constants]") {
  std::mt19937 Rng(7);
  std::string Kir = R"(graph @g(%x: f32[2,3,4]) -> (%y: f32[6,4], %z: f32[2,3,4]) {
  %w = const f32[4] )" + randomDense(Rng, 4, 0.5, 2.0) + R"(
  %v = const f32[4] )" + randomDense(Rng, 4) + R"(
  %s = sqrt(%w) : f32[4]
  %d = div(%v, %s) : f32[4]
  %e = exp(%d) : f32[4]
  %shape = shape(%x) : i64[3]
  %i0 = const i64[1] dense[0]
  %i1 = const i64[1] dense[1]
  %a = gather(%shape, %i0) : i64[1]
  %b = gather(%shape, %i1) : i64[1]
  %ab = mul(%a, %b) : i64[1]
  %m1 = const i64[1] dense[-1]
  %ns = concat(%ab, %m1) {axis=0} : i64[2]
  %r = reshape(%x, %ns) : f32[6,4]
  %y = mul(%r, %e) : f32[6,4]
  %z = add(%x, %e) : f32[2,3,4]
  return %y, %z
})";
  auto G = checkEquivalent(Kir, {"fold-constants"});
  for (const char *Op : {"sqrt", "div", "exp", "shape", "gather", "concat"})
    CHECK(countOps(*G, Op) == 0);
  CHECK(countOps(*G, "reshape") == 1);
}

TEST_CASE("cse keeps outputs", "[passes][cse]") {
  std::mt19937 Rng(11);
  std::string W = randomDense(Rng, 6);
  std::string Kir = R"(graph @g(%x: f32[3,2]) -> (%y: f32[3,3]) {
  %w1 = const f32[3,2] )" + W + R"(
  %w2 = const f32[3,2] )" + W + R"(
  %l1 = linear(%x, %w1) : f32[3,3]
  %l2 = linear(%x, %w2) : f32[3,3]
  %t1 = tanh(%l1) : f32[3,3]
  %t2 = tanh(%l2) : f32[3,3]
  %s1 = sigmoid(%l1) : f32[3,3]
  %p = mul(%t1, %t2) : f32[3,3]
  %y = sub(%p, %s1) : f32[3,3]
  return %y
})";
  auto G = checkEquivalent(Kir, {"cse"});
  CHECK(countOps(*G, "linear") == 1);
  CHECK(countOps(*G, "tanh") == 1);
  CHECK(countOps(*G, "const") == 1);
  CHECK(countOps(*G, "sigmoid") == 1);
}

TEST_CASE("eliminate-noops keeps outputs", "[passes][eliminate-noops]") {
  std::string Kir = R"(graph @g(%x: f32[2,3,4]) -> (%y: f32[4,2,3], %z: f32[2,3,4]) {
  %t1 = transpose(%x) {perm=[2, 0, 1]} : f32[4,2,3]
  %t2 = transpose(%t1) {perm=[1, 2, 0]} : f32[2,3,4]
  %i = identity(%t2) : f32[2,3,4]
  %shape = const i64[3] dense[2, 3, 4]
  %rs = reshape(%i, %shape) : f32[2,3,4]
  %c = cast(%rs) {to="f32"} : f32[2,3,4]
  %st = const i64[1] dense[0]
  %en = const i64[1] dense[100]
  %ax = const i64[1] dense[2]
  %sl = slice(%c, %st, %en, %ax) : f32[2,3,4]
  %pads = const i64[6] dense[0, 0, 0, 0, 0, 0]
  %p = pad(%sl, %pads) {mode="reflect"} : f32[2,3,4]
  %e = exp(%p) : f32[2,3,4]
  %y = transpose(%e) {perm=[2, 0, 1]} : f32[4,2,3]
  %z = relu(%p) : f32[2,3,4]
  return %y, %z
})";
  auto G = checkEquivalent(Kir, {"eliminate-noops", "dce"});
  CHECK(countOps(*G, "transpose") == 1); // the real one before %y
  for (const char *Op : {"identity", "reshape", "cast", "slice", "pad"})
    CHECK(countOps(*G, Op) == 0);
}

TEST_CASE("remove-dropout keeps outputs and the mask",
          "[passes][remove-dropout]") {
  std::string Kir = R"(graph @g(%x: f32[2,5]) -> (%y: f32[2,5], %m: bool[2,5]) {
  %r = relu(%x) : f32[2,5]
  %d, %m = dropout(%r) {ratio=0.5, seed=3} : f32[2,5], bool[2,5]
  %no = const bool[] dense[false]
  %ratio = const f32[] dense[0.25]
  %d2 = dropout(%d, %ratio, %no) : f32[2,5]
  %y = mul(%d2, %x) : f32[2,5]
  return %y, %m
})";
  auto G = checkEquivalent(Kir, {"remove-dropout"}, {0.0, 0.0});
  CHECK(countOps(*G, "dropout") == 0);
}

TEST_CASE("canonicalize keeps outputs: conv1d to conv2d",
          "[passes][canonicalize]") {
  std::mt19937 Rng(3);
  // A plain and a grouped conv1d with stride, asymmetric pads, dilation.
  for (int Group : {1, 2}) {
    int64_t PerGroup = 4 / Group;
    std::string Kir =
        "graph @g(%x: f32[2,4,11]) -> (%y: f32[2,6,5]) {\n"
        "  %w = const f32[6," + std::to_string(PerGroup) + ",3] " +
        randomDense(Rng, 6 * PerGroup * 3) + "\n"
        "  %b = const f32[6] " + randomDense(Rng, 6) + "\n"
        "  %y = conv(%x, %w, %b) {strides=[2], pads=[2, 1], dilations=[2], "
        "group=" + std::to_string(Group) + "} : f32[2,6,5]\n"
        "  return %y\n}";
    INFO("group " << Group);
    auto G = checkEquivalent(Kir, {"canonicalize"});
    CHECK(countOps(*G, "conv") == 1);
    CHECK(countOps(*G, "squeeze") == 1);
    for (const kiln::Node &N : G->nodes())
      if (N.isOp("conv"))
        CHECK(N.operand(0)->type().rank() == 4);
  }
}

TEST_CASE("canonicalize keeps outputs: matmul and gemm to linear",
          "[passes][canonicalize]") {
  std::mt19937 Rng(5);
  std::string Kir = R"(graph @g(%x: f32[2,3,5], %img: f32[2,2,2,2]) -> (%y: f32[2,3,4], %z: f32[2,3], %u: f32[2,3]) {
  %b = const f32[5,4] )" + randomDense(Rng, 20) + R"(
  %y = matmul(%x, %b) {activation="clip", activation_min=-0.5, activation_max=0.5} : f32[2,3,4]
  %flat = flatten(%img) {axis=1} : f32[2,8]
  %gw = const f32[3,8] )" + randomDense(Rng, 24) + R"(
  %gc = const f32[3] )" + randomDense(Rng, 3) + R"(
  %z = gemm(%flat, %gw, %gc) {trans_b=1} : f32[2,3]
  %uw = const f32[8,3] )" + randomDense(Rng, 24) + R"(
  %u = gemm(%flat, %uw) {beta=0.5} : f32[2,3]
  return %y, %z, %u
})";
  auto G = checkEquivalent(Kir, {"canonicalize"}, {1e-5, 1e-6});
  CHECK(countOps(*G, "linear") == 3);
  CHECK(countOps(*G, "matmul") == 0);
  CHECK(countOps(*G, "gemm") == 0);
}
