// The command-line options of quantization, shared by `kiln calibrate`,
// `kiln opt` and `kiln convert`, and their translation into the compiler's
// QuantizeOptions (passes/quant/QuantizeGraph.h):
//   --quantize none|fp16|int8-dynamic|int8
//   --calib PATH  --calib-limit N  --calib-bins B  --threads N
//   --calib-engine runtime|interpreter
//   --calib-config FILE.json  --calib-resize N|HxW  --calib-crop N|HxW
//   --calib-mean a,b,c  --calib-std a,b,c  --calib-scale S
//   --calib-channels rgb|bgr  --calib-layout nchw|nhwc
//   --calib-stats FILE.kcal  --calib-method minmax|percentile|entropy|mse
//   --calib-percentile P  --keep-float NODE|OP|auto  --min-sqnr DB
#pragma once

#include "passes/quant/QuantizeGraph.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kiln {

struct CalibrationFlags {
  std::string Path;
  std::string Config;
  std::string Resize, Crop, Mean, Std, Channels, Layout;
  double Scale = 0; // 0: not given
  uint64_t Limit = 0;
  uint32_t Bins = TensorObserver::DefaultBins;
  unsigned Threads = 0;
  std::string Engine = "runtime";
};

struct QuantizeFlags {
  std::string Mode = "none";
  CalibrationFlags Calib;
  std::string StatsPath;
  std::string Method = "percentile";
  double Percentile = 99.99;
  std::vector<std::string> KeepFloat;
  double MinSqnrDb = 30.0;
  uint64_t SqnrSamples = 16;
};

/// --calib and the preprocessing, limit, bins and threads options.
/// Without Threads, --threads is left to the command (`kiln diff` reads
/// samples only: its --threads is the session's).
void addCalibrationFlags(CLI::App &Sub, CalibrationFlags &F, bool Threads = true);
/// Everything quantization takes (includes addCalibrationFlags).
void addQuantizeFlags(CLI::App &Sub, QuantizeFlags &F);

/// Usage errors for malformed values; reads --calib-config.
llvm::Expected<CalibrationDataOptions>
makeCalibrationDataOptions(const CalibrationFlags &F);
llvm::Expected<QuantizeOptions> makeQuantizeOptions(const QuantizeFlags &F);
/// --calib-engine: the kiln runtime's engine (RuntimeCalibration.h), or
/// empty for the reference interpreter.
CalibrationEngineFactory calibrationEngine(const CalibrationFlags &F);

} // namespace kiln
