// Data-movement and index kernels: reshape, transpose, concat, split, slice,
// squeeze/unsqueeze, flatten, pad, expand, tile, shape, size, gather,
// constant_of_shape, range, argmax/argmin and topk. Expected values are
// worked out by hand from the ONNX definitions (noted next to each check).
#include "InterpreterTestHarness.h"

#include <limits>

using namespace kiln;
using namespace interptest;

static std::vector<double> iota(int64_t N) {
  std::vector<double> V;
  for (int64_t I = 0; I < N; ++I)
    V.push_back(double(I));
  return V;
}
static Tensor iotaF32(std::vector<int64_t> Sizes) {
  int64_t N = 1;
  for (int64_t S : Sizes)
    N *= S;
  std::vector<float> V;
  for (int64_t I = 0; I < N; ++I)
    V.push_back(float(I));
  return f32(Sizes, V);
}

TEST_CASE("reshape: 0 copies a dim, -1 infers one, allowzero", "[shape]") {
  const char *Kir = R"(
graph @g(%x: f32[2,3,4], %s: i64[2]) -> (%r: f32[?,?]) {
  %r = reshape(%x, %s) : f32[?,?]
  return %r
}
)";
  Tensor X = iotaF32({2, 3, 4});
  Tensor R = ok(run(Kir, {X, i64({2}, {0, -1})}))[0]; // [2, 24/2 = 12]
  CHECK(sizes(R) == std::vector<int64_t>{2, 12});
  CHECK(values(R) == iota(24));
  CHECK(sizes(ok(run(Kir, {X, i64({2}, {-1, 4})}))[0]) == std::vector<int64_t>{6, 4});
  CHECK_THAT(err(run(Kir, {X, i64({2}, {5, -1})})), Catch::Contains("cannot reshape"));
  CHECK_THAT(err(run(Kir, {X, i64({2}, {-1, -1})})), Catch::Contains("more than one -1"));
  // allowzero: 0 is a real size; an empty tensor reshapes to [0, 3].
  const char *Zero = R"(
graph @g(%x: f32[0,3]) -> (%r: f32[?,?]) {
  %s = const i64[2] dense[0, 3]
  %r = reshape(%x, %s) {allowzero=1} : f32[?,?]
  return %r
}
)";
  CHECK(sizes(ok(run(Zero, {f32({0, 3}, {})}))[0]) == std::vector<int64_t>{0, 3});
}

TEST_CASE("transpose", "[shape]") {
  const char *Kir = R"(
graph @g(%x: f32[2,3,4]) -> (%a: f32[4,3,2], %b: f32[3,2,4]) {
  %a = transpose(%x) : f32[4,3,2]
  %b = transpose(%x) {perm=[1, 0, 2]} : f32[3,2,4]
  return %a, %b
}
)";
  // x[i,j,k] = 12i + 4j + k.  a[k,j,i] = x[i,j,k]; b[j,i,k] = x[i,j,k].
  auto R = ok(run(Kir, {iotaF32({2, 3, 4})}));
  std::vector<double> A, B;
  for (int K = 0; K < 4; ++K)
    for (int J = 0; J < 3; ++J)
      for (int I = 0; I < 2; ++I)
        A.push_back(12 * I + 4 * J + K);
  for (int J = 0; J < 3; ++J)
    for (int I = 0; I < 2; ++I)
      for (int K = 0; K < 4; ++K)
        B.push_back(12 * I + 4 * J + K);
  checkValues(R[0], {4, 3, 2}, A);
  checkValues(R[1], {3, 2, 4}, B);
}

TEST_CASE("concat and split", "[shape]") {
  const char *Kir = R"(
graph @g(%a: i64[2,1], %b: i64[2,2]) -> (%r: i64[2,3], %s: i64[6]) {
  %r = concat(%a, %b) {axis=-1} : i64[2,3]
  %fa = flatten(%a) {axis=0} : i64[1,2]
  %fb = flatten(%b) {axis=0} : i64[1,4]
  %c = concat(%fa, %fb) {axis=1} : i64[1,6]
  %s = squeeze(%c) : i64[6]
  return %r, %s
}
)";
  auto R = ok(run(Kir, {i64({2, 1}, {1, 2}), i64({2, 2}, {3, 4, 5, 6})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{1, 3, 4, 2, 5, 6});
  CHECK(ints(R[1]) == std::vector<int64_t>{1, 2, 3, 4, 5, 6});

  // Equal parts: 5 into 2 -> ceil(5/2) = 3, then 2 (ONNX).
  const char *Equal = R"(
graph @g(%x: f32[5]) -> (%a: f32[3], %b: f32[2]) {
  %a, %b = split(%x) : f32[3], f32[2]
  return %a, %b
}
)";
  auto S = ok(run(Equal, {iotaF32({5})}));
  CHECK(values(S[0]) == std::vector<double>{0, 1, 2});
  CHECK(values(S[1]) == std::vector<double>{3, 4});
  // Sizes from the operand, along axis 1 of [2,4]: [1, 3].
  const char *Sizes = R"(
graph @g(%x: f32[2,4], %n: i64[2]) -> (%a: f32[2,?], %b: f32[2,?]) {
  %a, %b = split(%x, %n) {axis=1} : f32[2,?], f32[2,?]
  return %a, %b
}
)";
  S = ok(run(Sizes, {iotaF32({2, 4}), i64({2}, {1, 3})}));
  checkValues(S[0], {2, 1}, {0, 4});
  checkValues(S[1], {2, 3}, {1, 2, 3, 5, 6, 7});
  CHECK_THAT(err(run(Sizes, {iotaF32({2, 4}), i64({2}, {1, 2})})),
             Catch::Contains("split sizes"));
}

static const char *SliceKir = R"(
graph @g(%x: f32[?], %s: i64[?], %e: i64[?], %st: i64[?]) -> (%r: f32[?]) {
  %r = slice(%x, %s, %e, none, %st) : f32[?]
  return %r
}
)";

TEST_CASE("slice: negative, clamped and reversed", "[shape][slice]") {
  Tensor X = iotaF32({10});
  const int64_t Max = std::numeric_limits<int64_t>::max();
  const int64_t Min = std::numeric_limits<int64_t>::min();
  auto Slice = [&](int64_t S, int64_t E, int64_t St) {
    return values(ok(run(SliceKir, {X, i64({1}, {S}), i64({1}, {E}), i64({1}, {St})}))[0]);
  };
  CHECK(Slice(-3, Max, 1) == std::vector<double>{7, 8, 9});      // x[-3:]
  CHECK(Slice(2, 7, 2) == std::vector<double>{2, 4, 6});         // x[2:7:2]
  CHECK(Slice(-20, 2, 1) == std::vector<double>{0, 1});          // start clamps to 0
  CHECK(Slice(8, 1, -2) == std::vector<double>{8, 6, 4, 2});     // x[8:1:-2]
  CHECK(Slice(Max, Min, -1) == std::vector<double>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(Slice(-1, -4, -1) == std::vector<double>{9, 8, 7});      // x[-1:-4:-1]
  CHECK(Slice(5, 2, 1).empty());                                 // empty
  CHECK(Slice(20, 30, 1).empty());                               // past the end
  CHECK_THAT(err(run(SliceKir, {X, i64({1}, {0}), i64({1}, {1}), i64({1}, {0})})),
             Catch::Contains("step is 0"));
  // Axes, negative: x[2,3,4][:, :, 1:3] and rows reversed: x[::-1, 0:1, :].
  const char *Axes = R"(
graph @g(%x: f32[2,3,4]) -> (%a: f32[2,3,2], %b: f32[2,1,4]) {
  %s = const i64[1] dense[1]
  %e = const i64[1] dense[3]
  %ax = const i64[1] dense[-1]
  %a = slice(%x, %s, %e, %ax) : f32[2,3,2]
  %s2 = const i64[2] dense[-1, 0]
  %e2 = const i64[2] dense[-9223372036854775807, 1]
  %ax2 = const i64[2] dense[0, 1]
  %st2 = const i64[2] dense[-1, 1]
  %b = slice(%x, %s2, %e2, %ax2, %st2) : f32[2,1,4]
  return %a, %b
}
)";
  // x[i,j,k] = 12i + 4j + k.
  auto R = ok(run(Axes, {iotaF32({2, 3, 4})}));
  checkValues(R[0], {2, 3, 2}, {1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22});
  checkValues(R[1], {2, 1, 4}, {12, 13, 14, 15, 0, 1, 2, 3});
}

TEST_CASE("squeeze, unsqueeze, flatten", "[shape]") {
  const char *Kir = R"(
graph @g(%x: f32[1,3,1]) -> (%a: f32[3], %b: f32[3,1], %c: f32[1,1,3,1,1], %d: f32[1,3], %e: f32[3,1]) {
  %a = squeeze(%x) : f32[3]
  %ax = const i64[1] dense[0]
  %b = squeeze(%x, %ax) : f32[3,1]
  %ax2 = const i64[2] dense[-1, 0]
  %c = unsqueeze(%x, %ax2) : f32[1,1,3,1,1]
  %d = flatten(%x) {axis=0} : f32[1,3]
  %e = flatten(%x) {axis=-1} : f32[3,1]
  return %a, %b, %c, %d, %e
}
)";
  auto R = ok(run(Kir, {f32({1, 3, 1}, {1, 2, 3})}));
  checkValues(R[0], {3}, {1, 2, 3});
  checkValues(R[1], {3, 1}, {1, 2, 3});
  checkValues(R[2], {1, 1, 3, 1, 1}, {1, 2, 3});
  checkValues(R[3], {1, 3}, {1, 2, 3});
  checkValues(R[4], {3, 1}, {1, 2, 3});
  const char *Bad = R"(
graph @g(%x: f32[1,3]) -> (%a: f32[?]) {
  %ax = const i64[1] dense[1]
  %a = squeeze(%x, %ax) : f32[?]
  return %a
}
)";
  // Inference may reject it already; if not, the kernel must.
  auto G = parseGraph(Bad, "bad.kir");
  if (!G) {
    CHECK_THAT(llvm::toString(G.takeError()), Catch::Contains("squeeze"));
  } else {
    Interpreter I(**G, InterpreterOptions{1, {}});
    auto Res = I.run({f32({1, 3}, {1, 2, 3})});
    REQUIRE(!Res);
    CHECK_THAT(llvm::toString(Res.takeError()), Catch::Contains("cannot squeeze"));
  }
}

static const char *PadKir = R"(
graph @g(%x: f32[?,?], %p: i64[4], %v: f32[]) -> (%r: f32[?,?]) {
  %r = pad(%x, %p, %v) {mode=MODE} : f32[?,?]
  return %r
}
)";

static Tensor pad(const std::string &Mode, Tensor X, std::vector<int64_t> Pads) {
  std::string Kir = PadKir;
  Kir.replace(Kir.find("MODE"), 4, "\"" + Mode + "\"");
  return ok(run(Kir, {X, i64({4}, Pads), f32({}, {9})}))[0];
}

TEST_CASE("pad: constant, reflect, edge, negative", "[shape][pad]") {
  Tensor X = f32({2, 2}, {1, 2, 3, 4});
  // pads = [row begin, col begin, row end, col end] = one column each side.
  checkValues(pad("constant", X, {0, 1, 0, 1}), {2, 4}, {9, 1, 2, 9, 9, 3, 4, 9});
  checkValues(pad("reflect", X, {0, 1, 0, 1}), {2, 4}, {2, 1, 2, 1, 4, 3, 4, 3});
  checkValues(pad("edge", X, {0, 1, 0, 1}), {2, 4}, {1, 1, 2, 2, 3, 3, 4, 4});
  // One row above: constant row of 9s, edge repeats row 0, reflect takes row 1.
  checkValues(pad("constant", X, {1, 0, 0, 0}), {3, 2}, {9, 9, 1, 2, 3, 4});
  checkValues(pad("edge", X, {1, 0, 0, 0}), {3, 2}, {1, 2, 1, 2, 3, 4});
  checkValues(pad("reflect", X, {1, 0, 0, 0}), {3, 2}, {3, 4, 1, 2, 3, 4});
  // Reflect wider than the axis keeps mirroring (numpy): [1,2,3] by 2 each
  // side -> [3,2,1,2,3,2,1].
  checkValues(pad("reflect", f32({1, 3}, {1, 2, 3}), {0, 2, 0, 2}), {1, 7},
              {3, 2, 1, 2, 3, 2, 1});
  // Negative pads crop: drop column 0, add one column of 9 at the end.
  checkValues(pad("constant", X, {0, -1, 0, 1}), {2, 2}, {2, 9, 4, 9});
  // Without the value operand the fill is 0.
  const char *NoValue = R"(
graph @g(%x: i32[2]) -> (%r: i32[4]) {
  %p = const i64[2] dense[1, 1]
  %r = pad(%x, %p, none) : i32[4]
  return %r
}
)";
  CHECK(ints(ok(run(NoValue, {make<int32_t>(ElementType::I32, {2}, {5, 6})}))[0]) ==
        std::vector<int64_t>{0, 5, 6, 0});
}

TEST_CASE("expand and tile", "[shape]") {
  const char *Kir = R"(
graph @g(%x: f32[3,1]) -> (%e: f32[2,3,4], %t: f32[6,2]) {
  %s = const i64[3] dense[2, 1, 4]
  %e = expand(%x, %s) : f32[2,3,4]
  %rep = const i64[2] dense[2, 2]
  %t = tile(%x, %rep) : f32[6,2]
  return %e, %t
}
)";
  auto R = ok(run(Kir, {f32({3, 1}, {1, 2, 3})}));
  // e[i,j,k] = x[j]; t = [[1,1],[2,2],[3,3]] stacked twice.
  std::vector<double> E;
  for (int I = 0; I < 2; ++I)
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 4; ++K)
        E.push_back(J + 1);
  checkValues(R[0], {2, 3, 4}, E);
  checkValues(R[1], {6, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  Tensor T = ok(run(R"(
graph @g(%x: i64[2,2]) -> (%t: i64[2,4]) {
  %rep = const i64[2] dense[1, 2]
  %t = tile(%x, %rep) : i64[2,4]
  return %t
}
)", {i64({2, 2}, {1, 2, 3, 4})}))[0];
  CHECK(ints(T) == std::vector<int64_t>{1, 2, 1, 2, 3, 4, 3, 4});
}

TEST_CASE("shape and size", "[shape]") {
  const char *Kir = R"(
graph @g(%x: f32[2,3,4,5]) -> (%a: i64[4], %b: i64[3], %c: i64[3], %d: i64[4], %e: i64[0], %n: i64[]) {
  %a = shape(%x) : i64[4]
  %b = shape(%x) {start=1} : i64[3]
  %c = shape(%x) {end=-1} : i64[3]
  %d = shape(%x) {start=-10} : i64[4]
  %e = shape(%x) {start=2, end=1} : i64[0]
  %n = size(%x) : i64[]
  return %a, %b, %c, %d, %e, %n
}
)";
  auto R = ok(run(Kir, {f32({2, 3, 4, 5}, std::vector<float>(120, 0))}));
  CHECK(ints(R[0]) == std::vector<int64_t>{2, 3, 4, 5});
  CHECK(ints(R[1]) == std::vector<int64_t>{3, 4, 5});
  CHECK(ints(R[2]) == std::vector<int64_t>{2, 3, 4});
  CHECK(ints(R[3]) == std::vector<int64_t>{2, 3, 4, 5});
  CHECK(ints(R[4]).empty());
  CHECK(ints(R[5]) == std::vector<int64_t>{120});
}
