// compareTensors on vectors small enough to work out by hand.
#include "Tooling/ErrorMetrics.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace kiln;

namespace {

Tensor f32(std::vector<float> V) {
  int64_t N = int64_t(V.size());
  return Tensor::fromValues<float>(ElementType::F32, {Dim(N)}, V);
}

} // namespace

TEST_CASE("equal tensors: no error, infinite SQNR", "[tooling]") {
  auto M = compareTensors(f32({1, -2, 3}), f32({1, -2, 3}));
  REQUIRE(M);
  CHECK(M->MaxAbs == 0);
  CHECK(M->MaxRel == 0);
  CHECK(M->Cosine == Approx(1.0));
  CHECK(std::isinf(M->SqnrDb));
  CHECK(M->SqnrDb > 0);
  CHECK(M->Elements == 3);
}

TEST_CASE("a small error, worked out by hand", "[tooling]") {
  // ref = (3, 4), x = (3, 5): diff (0, 1), |diff|max = 1, |ref|max = 4,
  // sum ref^2 = 25, noise = 1 -> SQNR = 10 log10(25) = 13.979 dB,
  // cosine = (9 + 20) / (5 * sqrt(34)) = 29 / 29.1548 = 0.994692.
  auto M = compareTensors(f32({3, 5}), f32({3, 4}));
  REQUIRE(M);
  CHECK(M->MaxAbs == Approx(1.0));
  CHECK(M->MaxRel == Approx(0.25));
  CHECK(M->SqnrDb == Approx(13.9794).epsilon(1e-4));
  CHECK(M->Cosine == Approx(0.994692).epsilon(1e-5));
}

TEST_CASE("opposite vectors have cosine -1", "[tooling]") {
  // diff = (2, -4), noise = 20, signal = 5 -> 10 log10(0.25) = -6.0206 dB.
  auto M = compareTensors(f32({-1, 2}), f32({1, -2}));
  REQUIRE(M);
  CHECK(M->Cosine == Approx(-1.0));
  CHECK(M->MaxAbs == Approx(4.0));
  CHECK(M->SqnrDb == Approx(-6.0206).epsilon(1e-4));
}

TEST_CASE("integer tensors compare as doubles", "[tooling]") {
  std::vector<int8_t> A = {10, -20}, B = {12, -20};
  auto M = compareTensors(
      Tensor::fromValues<int8_t>(ElementType::I8, {Dim(2)}, A),
      Tensor::fromValues<int8_t>(ElementType::I8, {Dim(2)}, B));
  REQUIRE(M);
  CHECK(M->MaxAbs == Approx(2.0));
  CHECK(M->MaxRel == Approx(0.1)); // 2 / 20
}

TEST_CASE("a zero reference: relative error is infinite, cosine 0",
          "[tooling]") {
  auto M = compareTensors(f32({1, 0}), f32({0, 0}));
  REQUIRE(M);
  CHECK(std::isinf(M->MaxRel));
  CHECK(M->Cosine == 0);
  CHECK(std::isinf(M->SqnrDb));
  CHECK(M->SqnrDb < 0);
}

TEST_CASE("different element counts do not compare", "[tooling]") {
  CHECK_FALSE(compareTensors(f32({1, 2}), f32({1, 2, 3})));
}

TEST_CASE("mergeWorst keeps the worst of each metric", "[tooling]") {
  ErrorMetrics A, B;
  A.MaxAbs = 1;
  A.MaxRel = 0.5;
  A.Cosine = 0.9;
  A.SqnrDb = 20;
  A.Elements = 4;
  B.MaxAbs = 3;
  B.MaxRel = 0.1;
  B.Cosine = 0.99;
  B.SqnrDb = 10;
  B.Elements = 6;
  A.mergeWorst(B);
  CHECK(A.MaxAbs == 3);
  CHECK(A.MaxRel == 0.5);
  CHECK(A.Cosine == 0.9);
  CHECK(A.SqnrDb == 10);
  CHECK(A.Elements == 10);
}
