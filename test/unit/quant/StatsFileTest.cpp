// .kcal files: exact round trip, deterministic bytes, and clear errors (never
// a crash) for every truncation, a flipped byte, a wrong version, and merges
// of shards that do not belong together.
#include "passes/quant/CalibrationStats.h"
#include "Support/Hash.h"

#include "LlvmErrorChecks.h"

#include <catch2/catch.hpp>

#include <malloc.h>

#include <cmath>
#include <random>

using namespace kiln;

namespace {
CalibrationStats sampleStats(uint32_t Shard, uint32_t Count, unsigned Seed) {
  CalibrationStats S;
  S.GraphHash = 0x1234abcd5678ef00ull;
  S.Bins = 64;
  S.ShardCount = Count;
  S.Shards = {Shard};
  S.DatasetSamples = 10;
  S.Samples = 3;
  std::mt19937 Rng(Seed);
  std::normal_distribution<float> G(0.0f, 2.0f);
  for (uint32_t Ord : {0u, 3u, 7u}) {
    ObservedValue V;
    V.Ordinal = Ord;
    V.Name = "t" + std::to_string(Ord);
    V.Observer = TensorObserver(64);
    std::vector<float> X(100);
    for (float &F : X)
      F = G(Rng);
    V.Observer.observe(X.data(), X.size());
    S.Values.push_back(std::move(V));
  }
  return S;
}

std::string errorOf(llvm::Expected<CalibrationStats> S) {
  REQUIRE(!S);
  return llvm::toString(S.takeError());
}
} // namespace

TEST_CASE("stats round-trip exactly and serialize deterministically",
          "[quant][kcal]") {
  CalibrationStats S = sampleStats(1, 4, 1);
  std::string Bytes = serializeStats(S);
  CalibrationStats R = requireValue(parseStats(Bytes, "a.kcal"));
  CHECK(R.GraphHash == S.GraphHash);
  CHECK(R.Shards == S.Shards);
  CHECK(R.ShardCount == 4);
  CHECK(R.Samples == 3);
  REQUIRE(R.Values.size() == 3);
  for (size_t I = 0; I < 3; ++I) {
    CHECK(R.Values[I].Name == S.Values[I].Name);
    CHECK(R.Values[I].Observer == S.Values[I].Observer);
  }
  CHECK(serializeStats(R) == Bytes);
  CHECK(Bytes.substr(0, 4) == "KCAL");
}

TEST_CASE("every truncation and a flipped byte are clear errors",
          "[quant][kcal]") {
  std::string Bytes = serializeStats(sampleStats(0, 1, 2));
  for (size_t N = 0; N < Bytes.size(); ++N) {
    auto S = parseStats(llvm::StringRef(Bytes).take_front(N), "t.kcal");
    CHECK(!S);
    if (!S)
      llvm::consumeError(S.takeError());
  }
  std::string Flipped = Bytes;
  Flipped[40] ^= 0x10;
  CHECK(errorOf(parseStats(Flipped, "t.kcal")) ==
        "t.kcal: calibration file checksum mismatch (the file is damaged or "
        "truncated)");
  std::string Version = Bytes;
  Version[4] = 9;
  CHECK(errorOf(parseStats(Version, "t.kcal")) ==
        "t.kcal: calibration file version 9; this kiln reads versions 1 "
        "to 3 (recalibrate with this kiln)");
  CHECK(errorOf(parseStats("PK\x03\x04 not a kcal", "t.kcal")) ==
        "t.kcal: not a kiln calibration file (no KCAL header); make one with "
        "'kiln calibrate'");
}

TEST_CASE("the engine that ran the samples is recorded; version 1 files "
          "were the interpreter's",
          "[quant][kcal]") {
  CalibrationStats S = sampleStats(0, 1, 1);
  S.Engine = "kiln runtime (onednn, xnnpack) on Some CPU";
  std::string V2 = serializeStats(S);
  CHECK(requireValue(parseStats(V2, "a.kcal")).Engine == S.Engine);
  // The same statistics as a version 1 file: no engine field, and the
  // checksum of the bytes before it.
  S.Engine = "";
  std::string V1 = serializeStats(S);
  V1.erase(20, 4); // "KCAL", version, fingerprint, bins, then engine length
  V1[4] = 1;
  V1.resize(V1.size() - 8);
  uint64_t Sum = contentHash(V1);
  V1.append(reinterpret_cast<const char *>(&Sum), 8);
  CalibrationStats R = requireValue(parseStats(V1, "old.kcal"));
  CHECK(R.Engine == "reference interpreter");
  CHECK(R.Values.size() == S.Values.size());
  CHECK(R.Values[0].Observer == S.Values[0].Observer);
  // Its fingerprint may be of the old scheme: where it does not match, a
  // merge says so rather than "a different graph".
  CHECK(R.FileVersion == 1);
  CHECK(staleStatsReason(R) ==
        "written by an earlier kiln (.kcal version 1), which may compute the "
        "graph fingerprint differently; run `kiln calibrate` again with this "
        "kiln");
  CalibrationStats Into = requireValue(parseStats(V2, "a.kcal"));
  CHECK(staleStatsReason(Into).empty());
  Into.Shards = {1};
  Into.ShardCount = 2;
  R.ShardCount = 2;
  R.GraphHash ^= 1;
  llvm::Error E = mergeStats(Into, R, "old.kcal");
  REQUIRE(bool(E));
  CHECK(llvm::toString(std::move(E)) ==
        "old.kcal: statistics written by an earlier kiln (.kcal version 1), "
        "which may compute the graph fingerprint differently; run `kiln "
        "calibrate` again with this kiln");
}

TEST_CASE("merges check graph, bins, split and overlap", "[quant][kcal]") {
  CalibrationStats A = sampleStats(0, 2, 1);
  CalibrationStats B = sampleStats(1, 2, 2);
  CalibrationStats Other = sampleStats(1, 2, 3);
  Other.GraphHash = 1;
  auto MergeError = [&](CalibrationStats Into, const CalibrationStats &From) {
    llvm::Error E = mergeStats(Into, From, "b.kcal");
    if (!E)
      FAIL("the merge succeeded");
    return llvm::toString(std::move(E));
  };
  CHECK(MergeError(A, Other) ==
        "b.kcal: statistics of a different graph (fingerprint "
        "0000000000000001, expected 1234abcd5678ef00); calibrate every shard "
        "with the same model and options");
  CHECK(MergeError(A, A) == "b.kcal: shard 0/2 is already in the merge; each "
                            "shard may be merged once");
  CalibrationStats Bins = B;
  Bins.Bins = 128;
  CHECK(MergeError(A, Bins) == "b.kcal: histograms of 128 bins, expected 64; "
                               "calibrate every shard with the same "
                               "--calib-bins");
  CalibrationStats Split = sampleStats(1, 3, 2);
  CHECK(MergeError(A, Split) ==
        "b.kcal: shard of a 3-way split of 10 samples, expected a 2-way split "
        "of 10; use the same --calib, --calib-limit and --shard i/N for every "
        "shard");
  CalibrationStats M = A;
  REQUIRE_NO_ERROR(mergeStats(M, B, "b.kcal"));
  CHECK(M.complete());
  CHECK(M.Samples == 6);
  CHECK(M.Shards == std::vector<uint32_t>{0, 1});
  // Merge order does not matter, down to the bytes.
  CalibrationStats N = B;
  REQUIRE_NO_ERROR(mergeStats(N, A, "a.kcal"));
  CHECK(serializeStats(N) == serializeStats(M));
}

TEST_CASE("reading a .kcal allocates in proportion to the file",
          "[quant][kcal]") {
  // The amplification probe: 20,000 tensors at the largest bin count, one
  // value each. Dense histograms would take 20,000 x 65,536 x 8 bytes
  // (10 GiB); the reader keeps the non-zero bins only.
  CalibrationStats S;
  S.GraphHash = 7;
  S.Bins = TensorObserver::MaxBins;
  S.ShardCount = 1;
  S.Shards = {0};
  S.DatasetSamples = S.Samples = 1;
  for (uint32_t Ord = 0; Ord < 20000; ++Ord) {
    float X = float(Ord % 97) - 48.0f;
    auto O = TensorObserver::fromParts(S.Bins, X, X, 1, 0, 6,
                                       std::vector<TensorObserver::BinCount>{
                                           {uint32_t(std::floor(X * 512) + 32768), 1}});
    REQUIRE(bool(O));
    S.Values.push_back({Ord, "t" + std::to_string(Ord), std::move(*O)});
  }
  std::string Bytes = serializeStats(S);
  S = CalibrationStats();
  size_t Before = mallinfo2().uordblks;
  CalibrationStats R = requireValue(parseStats(Bytes, "amplify.kcal"));
  size_t Held = mallinfo2().uordblks - Before;
  INFO(Bytes.size() << " bytes of file, " << Held << " bytes held after reading");
  CHECK(R.Values.size() == 20000);
  CHECK(Held < 8 * Bytes.size());
  CHECK(R.Values[5].Observer.usedBins() == 1);
  CHECK(R.Values[5].Observer.counts().size() == TensorObserver::MaxBins);
  CHECK(serializeStats(R) == Bytes);
}

TEST_CASE("statistics that give a degenerate int8 scale say why",
          "[quant][kcal]") {
  auto One = [](float Lo, float Hi, int32_t Exponent, uint64_t NonFinite,
                std::vector<TensorObserver::BinCount> Used) {
    uint64_t Finite = 0;
    for (const auto &[Bin, N] : Used)
      Finite += N;
    auto O = TensorObserver::fromParts(64, Lo, Hi, Finite, NonFinite, Exponent,
                                       std::move(Used));
    REQUIRE(bool(O));
    return std::move(*O);
  };
  // [-1, 1): bins 8 (-0.75) and 48 (0.5).
  CHECK(whyNotQuantizable(One(-0.75f, 0.5f, 0, 0, {{8, 1}, {48, 1}})) == "");
  CHECK(whyNotQuantizable(One(-0.75f, 0.5f, 0, 3, {{8, 1}, {48, 1}})) ==
        "3 NaN or infinite values were observed (an overflow in the model, or "
        "such values in the data); no int8 range holds them");
  // +-3.4e38: the range, 6.8e38, is not an f32.
  const float Big = 3.4e38f;
  CHECK(whyNotQuantizable(One(-Big, Big, 128, 0, {{0, 1}, {63, 1}})) ==
        "range [-3.4e+38, 3.4e+38] is wider than f32 holds; its int8 scale "
        "would overflow");
  // 1e-39 is subnormal: bin floor(1e-39 * 2^131) + 32 = 34 at 2^-126.
  CHECK(whyNotQuantizable(One(1e-39f, 1e-39f, -126, 0, {{34, 2}}))
            .find("range [1e-39, 1e-39] is narrower than the smallest normal f32") !=
        std::string::npos);
  // All zeros is a real tensor (a mask never set): allowed.
  CHECK(whyNotQuantizable(One(0.0f, 0.0f, -126, 0, {{32, 5}})) == "");
}
