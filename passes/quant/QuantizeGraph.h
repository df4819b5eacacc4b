// The quantize entry point of the compiler: what `kiln convert --quantize`
// and `kiln opt --quantize` call on the optimized graph (after fusion, so
// that conv+relu quantizes as one op; nothing that folds constants may run
// after it). Modes:
//   none          nothing changes
//   fp16          weights stored as f16 (convert-weights-f16)
//   int8-dynamic  int8 weights, activations quantized at run time
//                 (quantize-dynamic-int8); no calibration needed
//   int8          static int8 QDQ from calibration statistics: either a
//                 .kcal file (`kiln calibrate`, checked against the graph's
//                 fingerprint) or calibration data run now
// --keep-float NODE|OP keeps nodes in float (by source node name, result
// name or op name); --keep-float auto keeps the fewest layers in float that
// bring the output SQNR on the calibration data to --min-sqnr dB.
#pragma once

#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/CalibrationMethod.h"
#include "passes/quant/CalibrationStats.h"
#include "passes/quant/Calibrator.h"
#include "passes/quant/SampleRunner.h"

#include "IR/Graph.h"
#include "passes/PassManager.h"

#include "llvm/ADT/Optional.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kiln {

enum class QuantizeMode { None, Fp16, Int8Dynamic, Int8 };

llvm::StringRef quantizeModeName(QuantizeMode M);
llvm::Optional<QuantizeMode> parseQuantizeMode(llvm::StringRef Name);

struct QuantizeOptions {
  QuantizeMode Mode = QuantizeMode::None;
  /// int8: statistics from `kiln calibrate` (a .kcal path) ...
  std::string StatsPath;
  /// ... or calibration data to run now (Data.Path non-empty). Both may be
  /// given: the statistics then come from the file, and the data is only
  /// used by --keep-float auto.
  CalibrationDataOptions Data;
  CalibrationMethodOptions Method;
  uint32_t Bins = TensorObserver::DefaultBins;
  /// Node names (source or result names) or op names; "auto" turns on the
  /// SQNR search.
  std::vector<std::string> KeepFloat;
  /// Target for --keep-float auto, in dB (min over the graph outputs).
  double MinSqnrDb = 30.0;
  /// Samples --keep-float auto measures on (the first ones of the data).
  uint64_t SqnrSamples = 16;
  /// Threads for calibration and measurement (0: hardware concurrency).
  unsigned Threads = 0;
  /// Progress of calibration (samples done / total); may be empty.
  ProgressFn Progress;
  /// What runs the calibration samples (empty: the reference interpreter).
  CalibrationEngineFactory CalibrationEngine;
  /// Runs the rewrite passes (insert-qdq) so that they are verified, printed
  /// and counted like the pipeline's; a pass manager of its own when null.
  PassManager *Passes = nullptr;
};

struct QuantizedTensorReport {
  std::string Name;
  std::string Kind;    // "activation", "weight", "bias"
  std::string Type;    // "i8", "i32", "f16"
  std::vector<float> Scales;
  std::vector<int64_t> ZeroPoints;
  int64_t Axis = -1;   // per-axis parameters along this axis
  double RangeLo = 0, RangeHi = 0; // activations: the calibrated range
};

struct FloatLayerReport {
  std::string Node; // display name
  std::string Op;
  std::string Reason;
};

/// One step of --keep-float auto.
struct SensitivityReport {
  std::string Node;
  std::string Op;
  double LayerSqnrDb = 0; // this layer's own quantization error
};

struct QuantizeReport {
  QuantizeMode Mode = QuantizeMode::None;
  std::string Method;            // int8 only
  uint64_t CalibrationSamples = 0;
  uint64_t ConstantBytesBefore = 0, ConstantBytesAfter = 0;
  int64_t QuantizedNodes = 0;
  std::vector<QuantizedTensorReport> Tensors;
  std::vector<FloatLayerReport> FloatLayers;
  /// --keep-float auto: target, output SQNR with every layer int8, the
  /// final output SQNR, and the layers ranked most sensitive first.
  bool AutoKeepFloat = false;
  double TargetSqnrDb = 0, AllInt8SqnrDb = 0, FinalSqnrDb = 0;
  std::vector<SensitivityReport> Ranking;
};

/// Quantizes G in place. Usage errors for inconsistent options, input errors
/// for statistics of another graph or bad calibration data.
llvm::Error quantizeGraph(Graph &G, const QuantizeOptions &Opts,
                          QuantizeReport &Report);

/// --stats text (stderr) and --json form of a report.
void printQuantizeReport(const QuantizeReport &R, llvm::raw_ostream &OS);
llvm::json::Value quantizeReportToJson(const QuantizeReport &R);

/// The nodes named by --keep-float specs ("auto" is skipped): each spec
/// matches nodes by op name, source name or result name; a spec that matches
/// nothing is a usage error.
llvm::Expected<std::vector<const Node *>>
resolveKeepFloat(const Graph &G, const std::vector<std::string> &Specs);

/// Total bytes of G's constants.
uint64_t constantBytes(const Graph &G);

} // namespace kiln
