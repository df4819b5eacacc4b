// Reductions (axes operand, keepdims, noop_with_empty_axes, empty inputs,
// integers, NaN, the parallel path) and quantize/dequantize (per tensor, per
// axis, rounding half to even, saturation). Values are worked out by hand.
#include "InterpreterTestHarness.h"

#include <limits>

using namespace kiln;
using namespace interptest;

// ONNX's reduce example: shape [3,2,2].
static Tensor onnxData() {
  return f32({3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
}

TEST_CASE("reductions over an axis, keepdims", "[reduce]") {
  const char *Kir = R"(
graph @g(%x: f32[3,2,2]) -> (%m: f32[3,1,2], %s: f32[3,1,2], %mx: f32[3,1,2], %mn: f32[3,1,2], %l: f32[3,2]) {
  %ax = const i64[1] dense[1]
  %m = reduce_mean(%x, %ax) : f32[3,1,2]
  %s = reduce_sum(%x, %ax) : f32[3,1,2]
  %mx = reduce_max(%x, %ax) : f32[3,1,2]
  %mn = reduce_min(%x, %ax) : f32[3,1,2]
  %last = const i64[1] dense[-1]
  %l = reduce_sum(%x, %last) {keepdims=0} : f32[3,2]
  return %m, %s, %mx, %mn, %l
}
)";
  auto R = ok(run(Kir, {onnxData()}));
  // Axis 1 pairs: (5,20), (1,2); (30,40), (1,2); (55,60), (1,2).
  checkValues(R[0], {3, 1, 2}, {12.5, 1.5, 35, 1.5, 57.5, 1.5});
  checkValues(R[1], {3, 1, 2}, {25, 3, 70, 3, 115, 3});
  checkValues(R[2], {3, 1, 2}, {20, 2, 40, 2, 60, 2});
  checkValues(R[3], {3, 1, 2}, {5, 1, 30, 1, 55, 1});
  // Last axis: 5+1, 20+2, 30+1, 40+2, 55+1, 60+2.
  checkValues(R[4], {3, 2}, {6, 22, 31, 42, 56, 62});
}

TEST_CASE("reductions over all axes and empty axes", "[reduce]") {
  const char *Kir = R"(
graph @g(%x: f32[3,2,2], %ax: i64[?]) -> (%a: f32[1,1,1], %b: f32[], %c: f32[?,?,?], %d: f32[3,2,2]) {
  %a = reduce_sum(%x) : f32[1,1,1]
  %b = reduce_mean(%x) {keepdims=0} : f32[]
  %c = reduce_max(%x, %ax) : f32[?,?,?]
  %d = reduce_min(%x) {noop_with_empty_axes=1} : f32[3,2,2]
  return %a, %b, %c, %d
}
)";
  // Sum of all 12 = 219, mean 219/12 = 18.25; empty axes = all (max 60);
  // noop_with_empty_axes without axes is the identity.
  auto R = ok(run(Kir, {onnxData(), i64({0}, {})}));
  checkValues(R[0], {1, 1, 1}, {219});
  checkValues(R[1], {}, {18.25});
  checkValues(R[2], {1, 1, 1}, {60});
  CHECK(values(R[3]) == values(onnxData()));
}

TEST_CASE("reductions: integers, NaN, empty inputs", "[reduce]") {
  const char *Ints = R"(
graph @g(%x: i32[2,2]) -> (%s: i32[2], %m: i32[2]) {
  %ax = const i64[1] dense[1]
  %s = reduce_sum(%x, %ax) {keepdims=0} : i32[2]
  %m = reduce_mean(%x, %ax) {keepdims=0} : i32[2]
  return %s, %m
}
)";
  // Rows [-3, 0] and [1, 2]: sums -3, 3; means -1.5 -> -1, 1.5 -> 1.
  auto R = ok(run(Ints, {make<int32_t>(ElementType::I32, {2, 2}, {-3, 0, 1, 2})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{-3, 3});
  CHECK(ints(R[1]) == std::vector<int64_t>{-1, 1});

  const char *Kir = R"(
graph @g(%x: f32[?,2]) -> (%mx: f32[2], %s: f32[2], %mn: f32[2]) {
  %ax = const i64[1] dense[0]
  %mx = reduce_max(%x, %ax) {keepdims=0} : f32[2]
  %s = reduce_sum(%x, %ax) {keepdims=0} : f32[2]
  %mn = reduce_min(%x, %ax) {keepdims=0} : f32[2]
  return %mx, %s, %mn
}
)";
  // Column 0 holds a NaN: max and min propagate it.
  R = ok(run(Kir, {f32({2, 2}, {NAN, 1, 2, 3})}));
  checkValues(R[0], {2}, {NAN, 3});
  checkValues(R[2], {2}, {NAN, 1});
  // Reducing an empty axis: sum 0, max -inf, min +inf.
  const double Inf = std::numeric_limits<double>::infinity();
  R = ok(run(Kir, {f32({0, 2}, {})}));
  checkValues(R[0], {2}, {-Inf, -Inf});
  checkValues(R[1], {2}, {0, 0});
  checkValues(R[2], {2}, {Inf, Inf});
}

TEST_CASE("reductions split across threads", "[reduce][pool]") {
  const char *Kir = R"(
graph @g(%x: f32[4,50000]) -> (%s: f32[4,1], %m: f32[1,50000]) {
  %ax = const i64[1] dense[1]
  %s = reduce_sum(%x, %ax) : f32[4,1]
  %ax0 = const i64[1] dense[0]
  %m = reduce_max(%x, %ax0) : f32[1,50000]
  return %s, %m
}
)";
  // x[i, j] = i + 1: row sums 50000 * (i + 1); column maxima 4.
  std::vector<float> XV;
  for (int I = 0; I < 4; ++I)
    XV.insert(XV.end(), 50000, float(I + 1));
  InterpreterOptions Four;
  Four.Threads = 4;
  auto R = ok(run(Kir, {f32({4, 50000}, XV)}, Four));
  checkValues(R[0], {4, 1}, {50000, 100000, 150000, 200000});
  checkValues(R[1], {1, 50000}, std::vector<double>(50000, 4));
}

TEST_CASE("quantize per tensor: round half to even, saturate", "[quant]") {
  const char *Kir = R"(
graph @g(%x: f32[8]) -> (%q: u8[8], %s: i8[8], %t: i8[8]) {
  %scale = const f32[] dense[2.0]
  %zp = const u8[] dense[128]
  %q = quantize(%x, %scale, %zp) : u8[8]
  %zs = const i8[] dense[0]
  %s = quantize(%x, %scale, %zs) : i8[8]
  %t = quantize(%x, %scale, none) {to="i8"} : i8[8]
  return %q, %s, %t
}
)";
  // x/2 = [0, 1, 1.5, 500, -127, -500, 2.5, -2.5]; rint (half to even) =
  // [0, 1, 2, 500, -127, -500, 2, -2].  + 128, saturated to [0, 255]:
  // [128, 129, 130, 255, 1, 0, 130, 126].  i8 with zp 0, saturated to
  // [-128, 127]: [0, 1, 2, 127, -127, -128, 2, -2].
  auto R = ok(run(Kir, {f32({8}, {0, 2, 3, 1000, -254, -1000, 5, -5})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{128, 129, 130, 255, 1, 0, 130, 126});
  CHECK(ints(R[1]) == std::vector<int64_t>{0, 1, 2, 127, -127, -128, 2, -2});
  CHECK(ints(R[2]) == ints(R[1]));
  CHECK(R[2].type().Elem == ElementType::I8);
}

TEST_CASE("quantize and dequantize per axis", "[quant]") {
  const char *Kir = R"(
graph @g(%x: f32[2,3]) -> (%q: u8[2,3], %d: f32[2,3]) {
  %scale = const f32[3] dense[1.0, 2.0, 4.0]
  %zp = const u8[3] dense[0, 10, 20]
  %q = quantize(%x, %scale, %zp) : u8[2,3]
  %d = dequantize(%q, %scale, %zp) : f32[2,3]
  return %q, %d
}
)";
  // Column c uses scale[c], zp[c]: 1 -> 1, -1 -> 0 (saturated);
  // 4/2 = 2 -> 12, 5/2 = 2.5 -> 2 -> 12; 8/4 = 2 -> 22, 10/4 = 2.5 -> 22.
  // Back: (q - zp) * scale = [1, 4, 8], [0, 4, 8].
  auto R = ok(run(Kir, {f32({2, 3}, {1, 4, 8, -1, 5, 10})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{1, 12, 22, 0, 12, 22});
  checkValues(R[1], {2, 3}, {1, 4, 8, 0, 4, 8});
}

TEST_CASE("dequantize: u8, i8 per axis, i32", "[quant]") {
  const char *Kir = R"(
graph @g(%q: u8[4], %p: i8[2,2], %b: i32[2]) -> (%a: f32[4], %c: f32[2,2], %d: f32[2]) {
  %s = const f32[] dense[2.0]
  %z = const u8[] dense[128]
  %a = dequantize(%q, %s, %z) : f32[4]
  %s2 = const f32[2] dense[0.5, 2.0]
  %z2 = const i8[2] dense[0, 1]
  %c = dequantize(%p, %s2, %z2) : f32[2,2]
  %s3 = const f32[] dense[0.5]
  %d = dequantize(%b, %s3, none) : f32[2]
  return %a, %c, %d
}
)";
  // (q - 128) * 2 for [0, 3, 128, 255] = [-256, -250, 0, 254] (ONNX example).
  // Per axis 1: col 0 * 0.5: -128 -> -64, 127 -> 63.5; col 1 (q - 1) * 2:
  // 0 -> -2, 5 -> 8.  i32 * 0.5: 1000 -> 500, -2000 -> -1000.
  auto R = ok(run(Kir, {make<uint8_t>(ElementType::U8, {4}, {0, 3, 128, 255}),
                        make<int8_t>(ElementType::I8, {2, 2}, {-128, 0, 127, 5}),
                        make<int32_t>(ElementType::I32, {2}, {1000, -2000})}));
  checkValues(R[0], {4}, {-256, -250, 0, 254});
  checkValues(R[1], {2, 2}, {-64, -2, 63.5, 8});
  checkValues(R[2], {2}, {500, -1000});
}
