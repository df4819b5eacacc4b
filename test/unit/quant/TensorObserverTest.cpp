// Observers: hand-computed bins, and the property the sharded workflow rests
// on: however data is split and merged, the result is the observer that saw
// everything at once, exactly.
#include "passes/quant/TensorObserver.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace kiln;

TEST_CASE("observer bins hand-computed values", "[quant][observer]") {
  TensorObserver O(64);
  // max|x| = 2.5 < 2^2: range [-4, 4), 64 bins of 0.125; bin = floor(x/0.125)+32.
  std::vector<float> X = {-1.5f, -0.25f, 0.0f, 0.3f, 1.0f, 2.5f};
  O.observe(X.data(), X.size());
  CHECK(O.exponent() == 2);
  CHECK(O.binWidth() == 0.125);
  CHECK(O.count() == 6);
  CHECK(O.min() == -1.5f);
  CHECK(O.max() == 2.5f);
  std::vector<uint64_t> Want(64, 0);
  for (int B : {20, 30, 32, 34, 40, 52})
    Want[size_t(B)] = 1;
  CHECK(O.counts() == Want);
  CHECK(O.binEdge(0) == -4.0);
  CHECK(O.binEdge(64) == 4.0);
}

TEST_CASE("observer widens its range by exact re-binning", "[quant][observer]") {
  TensorObserver O(64);
  std::vector<float> A = {0.3f, -0.7f}; // max|x| < 1: range [-1, 1), w = 1/32
  O.observe(A.data(), A.size());
  CHECK(O.exponent() == 0);
  CHECK(O.counts()[size_t(std::floor(0.3 * 32) + 32)] == 1);  // 41
  CHECK(O.counts()[size_t(std::floor(-0.7 * 32) + 32)] == 1); // 9
  std::vector<float> B = {5.0f}; // range [-8, 8), w = 0.25
  O.observe(B.data(), B.size());
  CHECK(O.exponent() == 3);
  std::vector<uint64_t> Want(64, 0);
  Want[32 + 1] = 1;  // 0.3 -> floor(1.2)
  Want[32 - 3] = 1;  // -0.7 -> floor(-2.8)
  Want[32 + 20] = 1; // 5.0 -> 20
  CHECK(O.counts() == Want);
  // A jump of more than log2(bins) + 1 doublings folds every earlier value
  // onto the two middle bins: positive ones on 32, negative ones on 31.
  std::vector<float> C = {1e30f};
  O.observe(C.data(), C.size());
  REQUIRE(O.exponent() > 90);
  uint64_t Sum = 0;
  for (uint64_t N : O.counts())
    Sum += N;
  CHECK(Sum == 4);
  CHECK(O.counts()[32] == 2); // 0.3, 5.0
  CHECK(O.counts()[31] == 1); // -0.7
  CHECK(O.counts()[size_t(std::floor(1e30 * 32 / std::ldexp(1.0, O.exponent())) + 32)] == 1);
}

TEST_CASE("non-finite values are counted, not binned", "[quant][observer]") {
  TensorObserver O(64);
  std::vector<float> X = {1.0f, NAN, INFINITY, -INFINITY};
  O.observe(X.data(), X.size());
  CHECK(O.count() == 1);
  CHECK(O.nonFiniteCount() == 3);
  CHECK(O.max() == 1.0f);
  CHECK(O.exponent() == 1);
}

TEST_CASE("all-zero and empty observers", "[quant][observer]") {
  TensorObserver O(64);
  CHECK(O.count() == 0);
  std::vector<float> Z(10, 0.0f);
  O.observe(Z.data(), Z.size());
  CHECK(O.exponent() == TensorObserver::MinExponent);
  CHECK(O.counts()[32] == 10);
  TensorObserver Empty(64);
  O.merge(Empty);
  CHECK(O.count() == 10);
}

namespace {
/// Data spanning many magnitudes, so shards have very different ranges.
std::vector<float> mixedData(std::mt19937 &Rng, size_t N) {
  std::normal_distribution<float> G(0.0f, 1.0f);
  std::uniform_int_distribution<int> Exp(-20, 12);
  std::vector<float> X(N);
  for (float &V : X)
    V = std::ldexp(G(Rng), Exp(Rng));
  return X;
}
} // namespace

TEST_CASE("merging shards equals one observer over everything, exactly",
          "[quant][observer]") {
  std::mt19937 Rng(7);
  for (uint32_t Bins : {64u, 2048u}) {
    std::vector<float> X = mixedData(Rng, 5000);
    TensorObserver Whole(Bins);
    Whole.observe(X.data(), X.size());
    for (int Split : {2, 3, 7, 50}) {
      // Contiguous pieces observed in reverse, merged in a shuffled order.
      std::vector<TensorObserver> Parts;
      size_t Step = X.size() / size_t(Split) + 1;
      for (size_t B = 0; B < X.size(); B += Step) {
        TensorObserver P(Bins);
        size_t E = std::min(X.size(), B + Step);
        for (size_t I = E; I-- > B;)
          P.observe(&X[I], 1);
        Parts.push_back(P);
      }
      std::shuffle(Parts.begin(), Parts.end(), Rng);
      TensorObserver Merged(Bins);
      for (const TensorObserver &P : Parts)
        Merged.merge(P);
      CHECK(Merged == Whole);
    }
  }
}

TEST_CASE("fromParts rejects inconsistent parts", "[quant][observer]") {
  // 64 bins over [-1, 1): 0.5 is in bin floor(0.5 * 32) + 32 = 48, 0.9 in 60.
  std::vector<uint64_t> C(64, 0);
  C[48] = 1;
  C[60] = 1;
  CHECK(bool(TensorObserver::fromParts(64, 0.5f, 0.9f, 2, 0, 0, C)));
  auto Check = [](llvm::Expected<TensorObserver> O, const std::string &Msg) {
    REQUIRE(!O);
    CHECK(llvm::toString(O.takeError()) == Msg);
  };
  Check(TensorObserver::fromParts(64, 0.5f, 0.9f, 3, 0, 0, C),
        "histogram counts sum to 2, but 3 values were observed");
  Check(TensorObserver::fromParts(64, 0.9f, 0.5f, 2, 0, 0, C),
        "min 0.9 / max 0.5 are not an ordered finite pair");
  Check(TensorObserver::fromParts(64, 0.5f, 3.0f, 2, 0, 0, C),
        "histogram range 2^0 does not hold max |x| = 3.0");
  Check(TensorObserver::fromParts(63, 0.5f, 0.9f, 2, 0, 0,
                                  std::vector<uint64_t>(63)),
        "histogram has 63 bins; expected a power of two in [64, 65536]");
  Check(TensorObserver::fromParts(64, 0.5f, 0.9f, 2, 0, 500, C),
        "histogram range exponent 500 is outside [-126, 128]");
  // A histogram that does not hold min and max where they fall (a lying bin
  // count, or a range that does not match the data).
  std::vector<uint64_t> Elsewhere(64, 0);
  Elsewhere[40] = 2;
  Check(TensorObserver::fromParts(64, 0.5f, 0.9f, 2, 0, 0, Elsewhere),
        "the histogram's bins 40 to 40 do not match min 0.5 and max 0.9 "
        "(bins 48 and 60)");
  std::vector<uint64_t> Zero(64, 0);
  Zero[32] = 5;
  CHECK(bool(TensorObserver::fromParts(64, 0.0f, 0.0f, 5, 0, -126, Zero)));
  Check(TensorObserver::fromParts(64, 0.0f, 0.0f, 5, 0, 0, C),
        "histogram counts sum to 2, but 5 values were observed");
}

TEST_CASE("an observer read from parts stays sparse and merges exactly",
          "[quant][observer]") {
  // Two shards' observers, dense as calibration leaves them, rebuilt from
  // their non-zero bins as a .kcal reader does, then merged: the result
  // equals the dense merge, bin for bin.
  TensorObserver A(1024), B(1024);
  std::vector<float> XA = {0.25f, -3.5f, 0.001f, 7.0f};
  std::vector<float> XB = {-100.0f, 0.5f, 0.5f, 60.0f, -1e-20f};
  A.observe(XA.data(), XA.size());
  B.observe(XB.data(), XB.size());
  auto Rebuild = [](const TensorObserver &O) {
    std::vector<TensorObserver::BinCount> Used;
    O.forEachBin([&](uint32_t Bin, uint64_t N) { Used.push_back({Bin, N}); });
    auto R = TensorObserver::fromParts(O.bins(), O.min(), O.max(), O.count(),
                                       O.nonFiniteCount(), O.exponent(), Used);
    REQUIRE(bool(R));
    return std::move(*R);
  };
  TensorObserver SA = Rebuild(A), SB = Rebuild(B);
  CHECK(SA == A);
  CHECK(SA.usedBins() == 4);
  SA.merge(SB);
  A.merge(B);
  CHECK(SA == A);
  CHECK(SA.usedBins() == A.usedBins());
  // A sparse observer that then sees data becomes dense and stays exact.
  std::vector<float> More = {2.0f, -0.75f};
  SA.observe(More.data(), More.size());
  A.observe(More.data(), More.size());
  CHECK(SA == A);
}

TEST_CASE("tiny values land on their side of zero", "[quant][observer]") {
  // -1e-30 is in [-w, 0), bin 31; a sum with the offset 32 before flooring
  // would round to 32.
  TensorObserver O(64);
  std::vector<float> X = {-1e-30f, 1e-30f, 1.0f, -std::numeric_limits<float>::denorm_min()};
  O.observe(X.data(), X.size());
  CHECK(O.counts()[31] == 2);
  CHECK(O.counts()[32] == 1);
  CHECK(O.counts()[48] == 1); // 1.0 with w = 2/32
}

TEST_CASE("bins equal floor(x * Bins / 2^(E+1)) + Bins/2 in double, at every "
          "range", "[quant][observer]") {
  // The definition, one value at a time in double, against observe() over
  // whole arrays (which bins blocks of values, in float where that is exact):
  // ranges from 2^-126 (tiny values, a factor 2^141 that is no float) over
  // ordinary ones to 2^40 (a factor below 1), arrays longer than a block.
  std::mt19937 Rng(11);
  std::normal_distribution<float> G(0.0f, 1.0f);
  for (uint32_t Bins : {64u, 2048u, 65536u})
    for (int Exp : {-140, -130, -20, -1, 0, 5, 11, 17, 40}) {
      std::vector<float> X(1000);
      for (float &V : X)
        V = std::ldexp(G(Rng), Exp);
      X[3] = 0.0f;
      X[4] = -std::numeric_limits<float>::denorm_min();
      TensorObserver O(Bins);
      O.observe(X.data(), X.size());
      double AbsMax = 0;
      for (float V : X)
        AbsMax = std::max(AbsMax, std::fabs(double(V)));
      int32_t E = rangeExponentFor(AbsMax);
      REQUIRE(O.exponent() == E);
      std::vector<uint64_t> Want(Bins, 0);
      for (float V : X)
        ++Want[size_t(int64_t(std::floor(double(V) * Bins /
                                         std::ldexp(1.0, E + 1))) +
                      int64_t(Bins / 2))];
      INFO("bins " << Bins << " exponent " << Exp);
      CHECK(O.counts() == Want);
      CHECK(O.min() == *std::min_element(X.begin(), X.end()));
      CHECK(O.max() == *std::max_element(X.begin(), X.end()));
    }
}

TEST_CASE("min and max of signed zeros do not depend on the order",
          "[quant][observer]") {
  // -0 counts as below +0, so whichever comes first, min is -0 and max +0,
  // also across merges.
  for (bool NegFirst : {true, false}) {
    std::vector<float> X = {NegFirst ? -0.0f : 0.0f, NegFirst ? 0.0f : -0.0f};
    TensorObserver O(64);
    O.observe(X.data(), X.size());
    CHECK(std::signbit(O.min()));
    CHECK(!std::signbit(O.max()));
    TensorObserver A(64), B(64);
    A.observe(&X[0], 1);
    B.observe(&X[1], 1);
    B.merge(A);
    CHECK(std::signbit(B.min()));
    CHECK(!std::signbit(B.max()));
  }
  std::vector<float> Pos = {0.0f, 1.0f}, Neg = {-1.0f, -0.0f};
  TensorObserver O(64);
  O.observe(Pos.data(), Pos.size());
  CHECK(!std::signbit(O.min()));
  O.observe(Neg.data(), Neg.size());
  CHECK(O.min() == -1.0f);
  CHECK(!std::signbit(O.max()));
  CHECK(O.max() == 1.0f);
}

TEST_CASE("non-finite values among many finite ones", "[quant][observer]") {
  // Past the first block of 256, with the range set by the finite ones.
  std::vector<float> X(700, 0.25f);
  X[600] = NAN;
  X[650] = -INFINITY;
  X[10] = -3.0f;
  TensorObserver O(64);
  O.observe(X.data(), X.size());
  CHECK(O.count() == 698);
  CHECK(O.nonFiniteCount() == 2);
  CHECK(O.min() == -3.0f);
  CHECK(O.max() == 0.25f);
  CHECK(O.exponent() == 2);
  CHECK(O.counts()[32 + 2] == 697); // 0.25 with w = 0.125
  CHECK(O.counts()[32 - 24] == 1);  // -3.0
}

TEST_CASE("the SSE2, AVX2 and AVX-512 paths give the same observer",
          "[quant][observer]") {
  // Lengths around the 8- and 16-lane steps and the 256-value blocks, long
  // enough for the four partial histograms; runs of zeros and negative
  // zeros (counted apart), subnormals, values far from each other, and
  // non-finite ones; two observations, so the second widens the range.
  std::mt19937 Rng(11);
  std::normal_distribution<float> N(0.0f, 3.0f);
  for (size_t Len : {size_t(1), size_t(15), size_t(17), size_t(255),
                     size_t(300), size_t(9000), size_t(40000)}) {
    std::vector<float> A(Len), B(Len);
    for (size_t I = 0; I < Len; ++I) {
      A[I] = I % 3 == 0 ? 0.0f : (I % 7 == 0 ? -0.0f : N(Rng));
      B[I] = N(Rng) * 1000.0f;
    }
    A[Len / 2] = 1e-40f; // subnormal
    if (Len > 20) {
      B[5] = NAN;
      B[Len - 3] = INFINITY;
    }
    std::vector<TensorObserver> Got;
    for (auto Path : {TensorObserver::VectorPath::Sse2,
                      TensorObserver::VectorPath::Avx2,
                      TensorObserver::VectorPath::Best}) {
      TensorObserver::setVectorPath(Path);
      TensorObserver O(2048);
      O.observe(A.data(), A.size());
      O.observe(B.data(), B.size());
      Got.push_back(O);
    }
    TensorObserver::setVectorPath(TensorObserver::VectorPath::Best);
    INFO("length " << Len);
    REQUIRE(Got[0].count() + Got[0].nonFiniteCount() == 2 * Len);
    REQUIRE(Got[0] == Got[1]);
    REQUIRE(Got[0] == Got[2]);
  }
}
