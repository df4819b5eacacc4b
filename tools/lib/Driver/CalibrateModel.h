// `kiln calibrate MODEL` as a library call, over calibration files (--calib)
// or over samples that come one after another (the Python package's
// iterables): the model is compiled as `kiln convert --quantize int8`
// calibrates it (its pipeline, then unfuse-int8-activations, so that the
// statistics' fingerprint matches), then observed on every sample.
#pragma once

#include "Driver/CompileGraph.h"
#include "Driver/QuantizeFlags.h"

#include "passes/quant/CalibrationStats.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

struct CalibrateModelOptions {
  /// The model and the pipeline it is calibrated after (no quantization).
  CompileGraphOptions Compile;
  /// The files (Path) and their preprocessing, the threads, bins and
  /// engine; a source of samples uses only the last three.
  CalibrationFlags Calib;
  /// "i/n": samples i, i+n, ... of the files; "" for all.
  std::string Shard;
};

/// Statistics over Calib's files.
llvm::Expected<CalibrationStats> calibrateModel(const CalibrateModelOptions &O);

/// A source of samples for the compiled graph G (cut against its inputs):
/// fills Sample and returns true, or returns false at the end. Read on the
/// calling thread.
using ModelSampleSource =
    std::function<llvm::Expected<bool>(const Graph &G, std::vector<Tensor> &Sample)>;

/// Statistics over Next's samples: equal to calibrateModel's over the same
/// samples from files, with memory that does not grow with their number.
llvm::Expected<CalibrationStats>
calibrateModelFromSource(const CalibrateModelOptions &O,
                         const ModelSampleSource &Next);

} // namespace kiln
