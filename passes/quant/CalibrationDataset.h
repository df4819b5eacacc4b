// Calibration data: the representative inputs calibration runs the float
// graph on. `--calib PATH` is one of
//   - a folder, searched recursively for .jpg/.jpeg/.png/.npy/.npz files
//     (sorted by path, so the order is the same on every machine);
//   - one such file;
//   - a text file listing such files, one per line (relative to the list's
//     folder; blank lines and lines starting with '#' are skipped).
// An .npy holds one input's samples: with one more axis than the input, each
// slice along axis 0 is a sample; with the input's rank, it is split along
// the batch axis (into batches of the input's static batch size, or of 1).
// An .npz holds one member per input, named like the input (any name for a
// single-input model). Images feed a single 4-D image input after
// preprocessing (Support/ImagePreprocess.h), as batches of 1.
//
// Samples are numbered in that order; --calib-limit N keeps the first N, and
// shard i of n takes samples i, i+n, i+2n, ... Loading is lazy (images are
// decoded when a sample is asked for) and thread-safe, so memory does not
// grow with the dataset.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"
#include "Support/ImagePreprocess.h"
#include "Support/Npy.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct CalibrationDataOptions {
  std::string Path;
  ImagePreprocess Preprocess;
  /// Keep only the first Limit samples (0: all).
  uint64_t Limit = 0;
  uint32_t ShardIndex = 0;
  uint32_t ShardCount = 1;
};

class CalibrationDataset {
public:
  /// Lists the samples for graph G and checks what can be checked without
  /// decoding: file kinds, array shapes and dtypes against G's inputs, and
  /// (without a resize) that all images have one size matching the input.
  static llvm::Expected<std::unique_ptr<CalibrationDataset>>
  open(const Graph &G, const CalibrationDataOptions &Opts);
  ~CalibrationDataset();

  /// Samples in the dataset (after --calib-limit), over all shards.
  uint64_t totalSamples() const;
  /// Samples in this shard.
  uint64_t size() const;
  /// Sample I of this shard, one tensor per graph input, in input order.
  /// Thread-safe. Errors name the file.
  llvm::Expected<std::vector<Tensor>> load(uint64_t I) const;
  /// "data/a.png" or "x.npy[3]", for messages.
  std::string describe(uint64_t I) const;

  struct Impl;

private:
  explicit CalibrationDataset(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

/// Samples from arrays in memory (a Python iterable's batches): Members
/// pairs each model input's name with its array (any one name for a
/// single-input model), cut into samples as an .npz file's members are
/// (one more axis than the input: a sample per slice; the input's rank:
/// along the batch axis). Errors name Where ("batch 3"). The tensors alias
/// the arrays' Owners.
llvm::Expected<std::vector<std::vector<Tensor>>>
splitCalibrationArrays(const Graph &G,
                       std::vector<std::pair<std::string, NpyArray>> Members,
                       llvm::StringRef Where);

/// Parses "i/n" for --shard (0 <= i < n <= 65536).
llvm::Error parseShardSpec(llvm::StringRef Spec, uint32_t &Index,
                           uint32_t &Count);

} // namespace kiln
