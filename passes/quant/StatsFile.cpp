// The .kcal file, version 3. Little-endian; every count is bounded and every
// list sorted, so a reader can check it completely before trusting it:
//   "KCAL"  u32 version  u64 graph-fingerprint  u32 bins
//   u32 engine-length  engine-bytes      (version 2; version 1 files were
//                                         all made by the interpreter)
// Version 3 has version 2's layout; its graph fingerprint leaves out
// activation dims (graphFingerprint). A version 1 or 2 file is read and
// used where its fingerprint matches; where it does not, staleStatsReason
// says it may be the scheme rather than the model.
//   u32 shard-count  u64 dataset-samples  u64 samples
//   u32 n-shards  { u32 shard }            strictly increasing, < shard-count
//   u32 n-values  { u32 ordinal           strictly increasing
//                   u32 name-length  name-bytes
//                   f32 min  f32 max  u64 finite  u64 non-finite  i32 exponent
//                   u32 n-bins-used { u32 bin  u64 count }  bins increasing,
//                 }                                         counts non-zero
//   u64 checksum    contentHash of everything before it
#include "passes/quant/CalibrationStats.h"

#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Hash.h"

#include <cstring>

namespace kiln {

namespace {
constexpr char Magic[4] = {'K', 'C', 'A', 'L'};
constexpr uint64_t MaxStatsFileBytes = uint64_t(1) << 30;
constexpr uint32_t MaxValues = 1u << 22;
constexpr uint32_t MaxNameBytes = 4096;
constexpr uint32_t MaxShards = 1u << 16;
constexpr uint32_t MaxEngineBytes = 256;

class Writer {
public:
  template <typename T> void put(T V) {
    char B[sizeof(T)];
    std::memcpy(B, &V, sizeof(T)); // the build targets little-endian hosts
    Out.append(B, sizeof(T));
  }
  void bytes(llvm::StringRef S) { Out += S.str(); }
  std::string Out;
};

class Reader {
public:
  Reader(llvm::StringRef Bytes, llvm::StringRef Name) : S(Bytes), Name(Name) {}

  template <typename T> llvm::Error get(T &V) {
    if (S.size() - Pos < sizeof(T))
      return bad("truncated");
    std::memcpy(&V, S.data() + Pos, sizeof(T));
    Pos += sizeof(T);
    return llvm::Error::success();
  }
  llvm::Error bytes(size_t N, std::string &Out) {
    if (S.size() - Pos < N)
      return bad("truncated");
    Out.assign(S.data() + Pos, N);
    Pos += N;
    return llvm::Error::success();
  }
  llvm::Error bad(const std::string &Why) const {
    return inputError("{0}: not a valid kiln calibration file: {1} (at byte "
                      "{2})",
                      Name, Why, Pos);
  }
  size_t pos() const { return Pos; }
  size_t remaining() const { return S.size() - Pos; }

private:
  llvm::StringRef S;
  llvm::StringRef Name;
  size_t Pos = 0;
};

#define KILN_READ(X)                                                           \
  if (llvm::Error E = R.get(X))                                                \
  return E

llvm::Expected<ObservedValue> readValue(Reader &R, uint32_t Bins) {
  ObservedValue V;
  uint32_t NameLen = 0;
  KILN_READ(V.Ordinal);
  KILN_READ(NameLen);
  if (NameLen > MaxNameBytes)
    return R.bad("a tensor name of " + std::to_string(NameLen) + " bytes");
  if (llvm::Error E = R.bytes(NameLen, V.Name))
    return E;
  float Min = 0, Max = 0;
  uint64_t Finite = 0, NonFinite = 0;
  int32_t Exponent = 0;
  uint32_t Used = 0;
  KILN_READ(Min);
  KILN_READ(Max);
  KILN_READ(Finite);
  KILN_READ(NonFinite);
  KILN_READ(Exponent);
  KILN_READ(Used);
  if (Used > Bins)
    return R.bad(std::to_string(Used) + " histogram entries for " +
                 std::to_string(Bins) + " bins");
  // Only the entries the file holds: each took 12 bytes of it.
  std::vector<TensorObserver::BinCount> Entries;
  Entries.reserve(std::min<size_t>(Used, R.remaining() / 12));
  for (uint32_t I = 0; I < Used; ++I) {
    uint32_t Bin = 0;
    uint64_t Count = 0;
    KILN_READ(Bin);
    KILN_READ(Count);
    Entries.push_back({Bin, Count});
  }
  auto O = TensorObserver::fromParts(Bins, Min, Max, Finite, NonFinite,
                                     Exponent, std::move(Entries));
  if (!O)
    return R.bad("tensor '" + V.Name + "': " + toString(O.takeError()));
  V.Observer = std::move(*O);
  return V;
}
} // namespace

std::string serializeStats(const CalibrationStats &S) {
  Writer W;
  W.bytes(llvm::StringRef(Magic, 4));
  W.put<uint32_t>(StatsFileVersion);
  W.put<uint64_t>(S.GraphHash);
  W.put<uint32_t>(S.Bins);
  W.put<uint32_t>(uint32_t(S.Engine.size()));
  W.bytes(S.Engine);
  W.put<uint32_t>(S.ShardCount);
  W.put<uint64_t>(S.DatasetSamples);
  W.put<uint64_t>(S.Samples);
  W.put<uint32_t>(uint32_t(S.Shards.size()));
  for (uint32_t Shard : S.Shards)
    W.put<uint32_t>(Shard);
  W.put<uint32_t>(uint32_t(S.Values.size()));
  for (const ObservedValue &V : S.Values) {
    const TensorObserver &O = V.Observer;
    W.put<uint32_t>(V.Ordinal);
    W.put<uint32_t>(uint32_t(V.Name.size()));
    W.bytes(V.Name);
    W.put<float>(O.min());
    W.put<float>(O.max());
    W.put<uint64_t>(O.count());
    W.put<uint64_t>(O.nonFiniteCount());
    W.put<int32_t>(O.exponent());
    W.put<uint32_t>(O.usedBins());
    O.forEachBin([&](uint32_t Bin, uint64_t Count) {
      W.put<uint32_t>(Bin);
      W.put<uint64_t>(Count);
    });
  }
  W.put<uint64_t>(contentHash(W.Out));
  return std::move(W.Out);
}

std::string staleStatsReason(const CalibrationStats &S) {
  if (S.FileVersion >= 3)
    return "";
  return "written by an earlier kiln (.kcal version " +
         std::to_string(S.FileVersion) +
         "), which may compute the graph fingerprint differently; run "
         "`kiln calibrate` again with this kiln";
}

llvm::Expected<CalibrationStats> parseStats(llvm::StringRef Bytes,
                                            llvm::StringRef Name) {
  if (Bytes.size() < 12 || !Bytes.startswith(llvm::StringRef(Magic, 4)))
    return inputError("{0}: not a kiln calibration file (no KCAL header); "
                      "make one with 'kiln calibrate'",
                      Name);
  uint64_t Stored = 0;
  std::memcpy(&Stored, Bytes.data() + Bytes.size() - 8, 8);
  llvm::StringRef Body = Bytes.drop_back(8);
  Reader R(Body, Name);
  std::string Skip;
  if (llvm::Error E = R.bytes(4, Skip))
    return E;
  uint32_t Version = 0;
  KILN_READ(Version);
  if (Version < 1 || Version > StatsFileVersion)
    return inputError("{0}: calibration file version {1}; this kiln reads "
                      "versions 1 to {2} (recalibrate with this kiln)",
                      Name, Version, StatsFileVersion);
  if (contentHash(Body) != Stored)
    return inputError("{0}: calibration file checksum mismatch (the file is "
                      "damaged or truncated)",
                      Name);
  CalibrationStats S;
  S.FileVersion = Version;
  uint32_t NShards = 0, NValues = 0;
  KILN_READ(S.GraphHash);
  KILN_READ(S.Bins);
  if (Version >= 2) {
    uint32_t EngineBytes = 0;
    KILN_READ(EngineBytes);
    if (EngineBytes > MaxEngineBytes)
      return R.bad("engine name of " + std::to_string(EngineBytes) + " bytes");
    if (llvm::Error E = R.bytes(EngineBytes, S.Engine))
      return E;
  }
  KILN_READ(S.ShardCount);
  KILN_READ(S.DatasetSamples);
  KILN_READ(S.Samples);
  if (!TensorObserver::validBinCount(S.Bins))
    return R.bad("bin count " + std::to_string(S.Bins));
  if (S.ShardCount == 0 || S.ShardCount > MaxShards || S.Samples > S.DatasetSamples)
    return R.bad("shard count " + std::to_string(S.ShardCount) + ", " +
                 std::to_string(S.Samples) + " of " +
                 std::to_string(S.DatasetSamples) + " samples");
  KILN_READ(NShards);
  if (NShards == 0 || NShards > S.ShardCount)
    return R.bad(std::to_string(NShards) + " shards of " +
                 std::to_string(S.ShardCount));
  S.Shards.clear();
  for (uint32_t I = 0; I < NShards; ++I) {
    uint32_t Shard = 0;
    KILN_READ(Shard);
    if (Shard >= S.ShardCount || (!S.Shards.empty() && Shard <= S.Shards.back()))
      return R.bad("shard indices must increase and be below the shard count");
    S.Shards.push_back(Shard);
  }
  KILN_READ(NValues);
  if (NValues > MaxValues)
    return R.bad(std::to_string(NValues) + " tensors");
  for (uint32_t I = 0; I < NValues; ++I) {
    auto V = readValue(R, S.Bins);
    if (!V)
      return V.takeError();
    if (!S.Values.empty() && V->Ordinal <= S.Values.back().Ordinal)
      return R.bad("tensor ordinals must increase");
    S.Values.push_back(std::move(*V));
  }
  if (R.pos() != Body.size())
    return R.bad("trailing bytes");
  return S;
}

#undef KILN_READ

llvm::Expected<CalibrationStats> readStatsFile(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  if ((*Buf)->getBufferSize() > MaxStatsFileBytes)
    return inputError("{0}: {1} bytes, above the {2}-byte limit for "
                      "calibration files",
                      Path, (*Buf)->getBufferSize(), MaxStatsFileBytes);
  return parseStats((*Buf)->getBuffer(), Path);
}

llvm::Error writeStatsFile(llvm::StringRef Path, const CalibrationStats &S) {
  return writeFileAtomically(Path, serializeStats(S));
}

} // namespace kiln
