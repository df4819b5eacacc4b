// Index kernels: gather, constant_of_shape, range, argmax/argmin and topk,
// with ties and NaN. Expected values are worked out by hand (ONNX docs'
// examples where they exist).
#include "InterpreterTestHarness.h"

using namespace kiln;
using namespace interptest;

TEST_CASE("gather: axes, negative and 2-D indices", "[index][gather]") {
  const char *Kir = R"(
graph @g(%x: f32[3,2], %i: i64[?,?], %j: i32[2]) -> (%a: f32[?,?,2], %b: f32[3,2]) {
  %a = gather(%x, %i) : f32[?,?,2]
  %b = gather(%x, %j) {axis=1} : f32[3,2]
  return %a, %b
}
)";
  // x = [[1,2],[3,4],[5,6]]; i = [[0,1],[-1,2]] picks rows 0,1 and 2,2;
  // j = [1, 0] swaps the columns.
  Tensor X = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto R = ok(run(Kir, {X, i64({2, 2}, {0, 1, -1, 2}),
                        make<int32_t>(ElementType::I32, {2}, {1, 0})}));
  checkValues(R[0], {2, 2, 2}, {1, 2, 3, 4, 5, 6, 5, 6});
  checkValues(R[1], {3, 2}, {2, 1, 4, 3, 6, 5});
  CHECK_THAT(err(run(Kir, {X, i64({1, 1}, {3}),
                           make<int32_t>(ElementType::I32, {2}, {0, 0})})),
             Catch::Contains("index 3 is out of range"));
}

TEST_CASE("constant_of_shape", "[index]") {
  const char *Kir = R"(
graph @g(%s: i64[2]) -> (%a: i32[?,?], %b: f32[?,?]) {
  %a = constant_of_shape(%s) {value=i32[1] dense[7]} : i32[?,?]
  %b = constant_of_shape(%s) : f32[?,?]
  return %a, %b
}
)";
  auto R = ok(run(Kir, {i64({2}, {2, 3})}));
  CHECK(sizes(R[0]) == std::vector<int64_t>{2, 3});
  CHECK(ints(R[0]) == std::vector<int64_t>(6, 7));
  checkValues(R[1], {2, 3}, std::vector<double>(6, 0));
  R = ok(run(Kir, {i64({2}, {0, 3})}));
  CHECK(R[0].numElements() == 0);
  CHECK_THAT(err(run(Kir, {i64({2}, {-1, 3})})), Catch::Contains("negative"));
}

TEST_CASE("range", "[index]") {
  const char *Kir = R"(
graph @g(%s: f32[], %l: f32[], %d: f32[], %si: i32[], %li: i32[], %di: i32[]) -> (%a: f32[?], %b: i32[?]) {
  %a = range(%s, %l, %d) : f32[?]
  %b = range(%si, %li, %di) : i32[?]
  return %a, %b
}
)";
  auto I32 = [](int32_t V) { return make<int32_t>(ElementType::I32, {}, {V}); };
  // ceil((5-1)/2) = 2 values: 1, 3.  ceil((6-10)/-3) = ceil(1.33) = 2: 10, 7.
  auto R = ok(run(Kir, {f32({}, {1}), f32({}, {5}), f32({}, {2}), I32(10), I32(6),
                        I32(-3)}));
  checkValues(R[0], {2}, {1, 3});
  CHECK(ints(R[1]) == std::vector<int64_t>{10, 7});
  // Limit behind start: empty. 0.5 steps: ceil(1/0.5) = 2 values.
  R = ok(run(Kir, {f32({}, {1}), f32({}, {2}), f32({}, {0.5}), I32(3), I32(1), I32(1)}));
  checkValues(R[0], {2}, {1, 1.5});
  CHECK(R[1].numElements() == 0);
  CHECK_THAT(err(run(Kir, {f32({}, {1}), f32({}, {2}), f32({}, {0}), I32(1),
                           I32(1), I32(1)})),
             Catch::Contains("delta is 0"));
}

TEST_CASE("argmax and argmin", "[index][arg]") {
  const char *Kir = R"(
graph @g(%x: f32[2,2]) -> (%a: i64[2,1], %b: i64[2], %c: i64[1,2], %d: i64[2,1], %e: i64[2,1]) {
  %a = argmax(%x) {axis=1} : i64[2,1]
  %b = argmin(%x) {axis=0, keepdims=0} : i64[2]
  %c = argmax(%x) : i64[1,2]
  %d = argmax(%x) {axis=-1, select_last_index=1} : i64[2,1]
  %e = argmin(%x) {axis=1, select_last_index=1} : i64[2,1]
  return %a, %b, %c, %d, %e
}
)";
  // ONNX example: [[2,1],[3,10]]: argmax axis 1 = [[0],[1]]; argmin axis 0
  // = [0, 0]; argmax axis 0 = [[1, 1]].
  auto R = ok(run(Kir, {f32({2, 2}, {2, 1, 3, 10})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{0, 1});
  CHECK(ints(R[1]) == std::vector<int64_t>{0, 0});
  CHECK(ints(R[2]) == std::vector<int64_t>{1, 1});
  // Ties [[2,2],[3,3]]: first index by default, last with select_last_index.
  R = ok(run(Kir, {f32({2, 2}, {2, 2, 3, 3})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{0, 0});
  CHECK(ints(R[3]) == std::vector<int64_t>{1, 1});
  CHECK(ints(R[4]) == std::vector<int64_t>{1, 1});
  // NaN is picked first, as numpy does: row 0 = [1, NaN].
  R = ok(run(Kir, {f32({2, 2}, {1, NAN, 3, 4})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{1, 1});
}

TEST_CASE("topk: largest, smallest, ties, axis", "[index][topk]") {
  const char *Kir = R"(
graph @g(%x: f32[3,4], %k: i64[1]) -> (%v: f32[3,?], %i: i64[3,?], %sv: f32[3,?], %si: i64[3,?]) {
  %v, %i = topk(%x, %k) : f32[3,?], i64[3,?]
  %sv, %si = topk(%x, %k) {largest=0} : f32[3,?], i64[3,?]
  return %v, %i, %sv, %si
}
)";
  // ONNX example: x = 0..11 as [3,4], k = 3.
  auto R = ok(run(Kir, {f32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}),
                        i64({1}, {3})}));
  checkValues(R[0], {3, 3}, {3, 2, 1, 7, 6, 5, 11, 10, 9});
  CHECK(ints(R[1]) == std::vector<int64_t>{3, 2, 1, 3, 2, 1, 3, 2, 1});
  checkValues(R[2], {3, 3}, {0, 1, 2, 4, 5, 6, 8, 9, 10});
  CHECK(ints(R[3]) == std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2});
  // Ties keep the lower index first: row [1, 3, 3, 2] -> 3@1, 3@2;
  // smallest of [5, 1, 1, 0] -> 0@3, 1@1.
  R = ok(run(Kir, {f32({3, 4}, {1, 3, 3, 2, 5, 1, 1, 0, 7, 7, 7, 7}), i64({1}, {2})}));
  checkValues(R[0], {3, 2}, {3, 3, 5, 1, 7, 7});
  CHECK(ints(R[1]) == std::vector<int64_t>{1, 2, 0, 1, 0, 1});
  CHECK(ints(R[3]) == std::vector<int64_t>{0, 3, 3, 1, 0, 1});
  CHECK_THAT(err(run(Kir, {f32({3, 4}, std::vector<float>(12, 0)), i64({1}, {5})})),
             Catch::Contains("topk k"));
  // Along axis 0 of [3,2]: column maxima with their rows.
  const char *Axis0 = R"(
graph @g(%x: i32[3,2]) -> (%v: i32[1,2], %i: i64[1,2]) {
  %k = const i64[1] dense[1]
  %v, %i = topk(%x, %k) {axis=0} : i32[1,2], i64[1,2]
  return %v, %i
}
)";
  R = ok(run(Axis0, {make<int32_t>(ElementType::I32, {3, 2}, {1, 9, 8, 2, 3, 4})}));
  CHECK(ints(R[0]) == std::vector<int64_t>{8, 9});
  CHECK(ints(R[1]) == std::vector<int64_t>{1, 0});
}
