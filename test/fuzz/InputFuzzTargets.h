// The compiler's parsers of untrusted input, each as one fuzz entry: bytes
// in, and either a clean error or a result out; anything else (a crash, a
// sanitizer report, a hang) is a bug. Shared by the libFuzzer binaries
// (InputFuzzer.cpp, clang only), their replay drivers (kiln-input-replay,
// kiln-data-input-replay) and the ctest tests that replay
// test/fuzz/regressions-KIND.
//
// Two libraries: kiln_data_fuzz_target (DataFuzzTargets.cpp) holds the data
// formats, which need only kiln_support; kiln_input_fuzz_target
// (InputFuzzTargets.cpp) adds ONNX, which needs the frontend and the passes,
// kiln build's manifest, which needs the target registry, and the pass
// record, which needs the driver.
// The data-only build is what the sanitizer stage of CI compiles in minutes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kiln::fuzz {

enum class InputKind {
  /// An ONNX model: imported, verified, then through the -O2 pipeline.
  Onnx,
  /// A .npy array, or an .npz archive (bytes starting "PK") with its
  /// members' headers checked before they are inflated.
  Npy,
  /// A JPEG or PNG: decoded (3 and 1 channels; at most 2^16 pixels) and
  /// preprocessed as calibration does (resize to 36x36, crop 32, normalized).
  Image,
  /// The structural zip check a TorchScript .pt passes before libtorch
  /// reads it.
  TorchScriptZip,
  /// A kiln build manifest (TOML): parsed and checked, its relative paths
  /// resolved against a folder that does not exist.
  Manifest,
  /// A pass record (kiln opt --pass-record, JSON): parsed and checked,
  /// then printed and parsed again to the same record.
  PassRecord,
  /// A .kcal calibration file, its last 8 bytes replaced by the checksum
  /// of the rest (so that mutations reach the structure checks): parsed,
  /// checked for quantization, every method's range computed, and written
  /// and read again to the same bytes.
  Kcal,
};

std::optional<InputKind> inputKindNamed(const std::string &Name);
const char *inputKindName(InputKind Kind);

/// True for the kinds kiln_data_fuzz_target runs (all but ONNX, the
/// manifest and the pass record; .kcal files need only kiln_calib_file).
bool isDataKind(InputKind Kind);

/// Runs one input of any kind (kiln_input_fuzz_target); true when it was
/// accepted, false when it was refused with an error.
bool runInput(InputKind Kind, const uint8_t *Data, size_t Size);

/// The same for a data kind (kiln_data_fuzz_target); Kind must be one.
bool runDataInput(InputKind Kind, const uint8_t *Data, size_t Size);

} // namespace kiln::fuzz
