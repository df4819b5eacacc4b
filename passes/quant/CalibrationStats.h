// Calibration statistics of one graph: an observer per float tensor, and
// which shards of the dataset they cover. Shards computed on different
// machines merge exactly (TensorObserver), so the merged statistics give the
// same scales, bit for bit, as one run over the whole dataset.
//
// Tensors are identified by their ordinal in valuesInOrder(), which is only
// meaningful for the very graph that was calibrated: the statistics carry
// that graph's fingerprint, and using them on another graph is an error.
#pragma once

#include "passes/quant/TensorObserver.h"

#include "IR/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct ObservedValue {
  uint32_t Ordinal = 0;
  /// For reports: the value's name, or its producer's display name.
  std::string Name;
  TensorObserver Observer;
};

/// The .kcal version this kiln writes (StatsFile.cpp).
constexpr uint32_t StatsFileVersionCurrent = 3;

struct CalibrationStats {
  uint64_t GraphHash = 0;
  uint32_t Bins = TensorObserver::DefaultBins;
  /// The dataset was split into ShardCount shards; Shards lists the ones
  /// these statistics include (sorted, distinct).
  uint32_t ShardCount = 1;
  std::vector<uint32_t> Shards = {0};
  /// Samples in the whole dataset (every shard), and observed here.
  uint64_t DatasetSamples = 0;
  uint64_t Samples = 0;
  /// What ran the samples: "reference interpreter", or the kiln runtime and
  /// the CPU it ran on. Shards merge to exactly the statistics of one run
  /// only when they were made by the same engine on the same kind of CPU
  /// (kernels differ in their last bits across instruction sets).
  std::string Engine = "reference interpreter";
  /// Sorted by ordinal.
  std::vector<ObservedValue> Values;
  /// The .kcal version it was read from (StatsFileVersion when made here).
  /// Before version 3 the graph fingerprint included activation dims (but
  /// for the last builds that wrote version 2): an older file whose
  /// fingerprint does not match must be computed again.
  uint32_t FileVersion = StatsFileVersionCurrent;

  const ObservedValue *find(uint32_t Ordinal) const;
  bool complete() const { return Shards.size() == ShardCount; }
};

/// Graph inputs, then every node result, in graph order: index = ordinal.
std::vector<const Value *> valuesInOrder(const Graph &G);
/// The name reports use for V.
std::string reportName(const Value &V);

/// Content hash of G's text form (structure, element types, names,
/// constants with their shapes and weight hashes), with the dims of the
/// graph inputs and computed values left out: only symbolic dims can differ
/// between two loads of one model (--input-shape cannot change a static
/// dim), so statistics fit the graph at any batch, while a pass that
/// rewrote the graph differently at another size still changes the hash.
uint64_t graphFingerprint(const Graph &G);

/// Adds From (read from FromName) into Into. Both must come from the same
/// graph, bin count and shard split, with no shard in common; a different
/// engine is a warning (the merge is then exact only up to float rounding).
/// The merge's engine is Into's.
llvm::Error mergeStats(CalibrationStats &Into, const CalibrationStats &From,
                       llvm::StringRef FromName);

/// The .kcal file: a small, versioned, checksummed binary form (see
/// StatsFile.cpp). Serialization is deterministic.
constexpr uint32_t StatsFileVersion = StatsFileVersionCurrent;
/// Why statistics read from a file of an earlier version may not match
/// this kiln's fingerprint of the same graph (the scheme changed), or "".
/// Said where the fingerprints differ, in place of "a different graph".
std::string staleStatsReason(const CalibrationStats &S);

/// Why O cannot give an activation a usable int8 range, or "": NaN or
/// infinite values observed (an overflow in the model, or such values in a
/// .kcal), or a range wider than f32 holds or narrower than its smallest
/// normal number. Asked only of the activations int8 quantizes (PlanInt8):
/// a float tensor may hold -inf (an attention mask) legitimately.
std::string whyNotQuantizable(const TensorObserver &O);
std::string serializeStats(const CalibrationStats &S);
llvm::Expected<CalibrationStats> parseStats(llvm::StringRef Bytes,
                                            llvm::StringRef Name);
llvm::Expected<CalibrationStats> readStatsFile(llvm::StringRef Path);
/// Written atomically (temporary file, fsync, rename).
llvm::Error writeStatsFile(llvm::StringRef Path, const CalibrationStats &S);

} // namespace kiln
