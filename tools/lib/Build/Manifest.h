// The manifest of `kiln build` (docs/build.md): models, and build entries
// whose every target x precision combination is one artifact, read from
// TOML with toml++. Every error names the file, the line and the key.
#pragma once

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct ManifestModel {
  std::string Name;
  /// As written, and resolved against the manifest's folder.
  std::string Source, SourcePath;
  /// --input-shape values ("1x3x224x224" or "x=1x3x224x224").
  std::vector<std::string> InputShapes;
  /// Calibration samples (a folder, a file or a list), resolved; "" if none.
  std::string CalibPath;
  /// Further calibration flags (preprocessing: "--calib-resize", "256").
  std::vector<std::string> CalibOptions;
  /// Calibration shards (`kiln calibrate --shard i/n`, then --merge).
  unsigned CalibShards = 1;
  /// The gates' inputs: an .npz, resolved ("" for the first CheckSamples
  /// calibration samples, or seeded random inputs without calibration).
  std::string CheckInputsPath;
  unsigned CheckSamples = 4;
  unsigned Line = 0;
};

struct ManifestBuild {
  unsigned Index = 0; // 1-based, as "[[build]] #N"
  unsigned Line = 0;
  std::string Model;
  std::vector<std::string> Targets, Precisions;
  std::optional<double> MinSqnr;
  std::optional<uint64_t> MaxSize; // bytes
  std::vector<std::string> Options;
  bool SkipUnsupported = false;
};

struct Manifest {
  std::string Path; // as given
  std::string Dir;  // its folder, absolute
  std::map<std::string, ManifestModel> Models;
  std::vector<ManifestBuild> Builds;
};

/// Reads and checks Path: bad input (exit 1) naming "FILE:LINE:COL" and the
/// key for a TOML syntax error, an unknown key, a wrong type, a missing
/// model file or an unknown model, target or precision.
llvm::Expected<Manifest> loadManifest(const std::string &Path);

/// The same for a manifest's text, named Path in errors, whose relative
/// paths resolve against Dir (what loadManifest reads; the fuzzer's entry).
llvm::Expected<Manifest> parseManifest(llvm::StringRef Text,
                                       const std::string &Path,
                                       const std::string &Dir);

/// "12MB", "300 kB", "1.5MiB", "4096" -> bytes; nullopt when malformed.
std::optional<uint64_t> parseByteSize(llvm::StringRef Text);

} // namespace kiln
