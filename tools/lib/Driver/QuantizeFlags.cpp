#include "Driver/QuantizeFlags.h"
#include "Driver/RuntimeCalibration.h"

#include "Driver/ProgressBar.h"

#include "Support/Error.h"

namespace kiln {

void addCalibrationFlags(CLI::App &Sub, CalibrationFlags &F, bool Threads) {
  Sub.add_option("--calib", F.Path,
                 "calibration data: a folder of images (.jpg/.png) or "
                 ".npy/.npz files, one such file, or a text file listing them");
  Sub.add_option("--calib-config", F.Config,
                 "preprocessing as JSON: {\"resize\": 256, \"crop\": 224, "
                 "\"mean\": [...], \"std\": [...], \"scale\": 0.0039, "
                 "\"channels\": \"rgb\", \"layout\": \"nchw\"}; flags override it");
  Sub.add_option("--calib-resize", F.Resize,
                 "resize images: N (shorter side, aspect kept) or HxW");
  Sub.add_option("--calib-crop", F.Crop, "center-crop images to N or HxW");
  Sub.add_option("--calib-mean", F.Mean,
                 "per-channel mean subtracted after scaling (a or a,b,c)");
  Sub.add_option("--calib-std", F.Std, "per-channel std divided by (a or a,b,c)");
  Sub.add_option("--calib-scale", F.Scale,
                 "pixel scale before mean/std (default 1/255)");
  Sub.add_option("--calib-channels", F.Channels, "rgb (default) or bgr")
      ->check(CLI::IsMember({"rgb", "bgr"}));
  Sub.add_option("--calib-layout", F.Layout, "nchw (default) or nhwc")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  Sub.add_option("--calib-limit", F.Limit,
                 "use only the first N calibration samples");
  Sub.add_option("--calib-bins", F.Bins,
                 "histogram bins per tensor (a power of two, default 2048)");
  if (Threads)
    Sub.add_option("--threads", F.Threads,
                   "calibration threads (default: all cores)");
  Sub.add_option("--calib-engine", F.Engine,
                 "what runs the float graph over the samples: runtime (the "
                 "kiln runtime's CPU kernels, default; the interpreter where "
                 "the CPU target cannot run the graph) or interpreter (the "
                 "reference interpreter)")
      ->check(CLI::IsMember({"runtime", "interpreter"}));
}

CalibrationEngineFactory calibrationEngine(const CalibrationFlags &F) {
  if (F.Engine == "interpreter")
    return {};
  return runtimeCalibrationEngine;
}

void addQuantizeFlags(CLI::App &Sub, QuantizeFlags &F) {
  Sub.add_option("--quantize", F.Mode,
                 "none, fp16 (f16 weights), int8-dynamic (int8 weights, "
                 "activations at run time) or int8 (calibrated)")
      ->check(CLI::IsMember({"none", "fp16", "int8-dynamic", "int8"}));
  addCalibrationFlags(Sub, F.Calib);
  Sub.add_option("--calib-stats", F.StatsPath,
                 "calibration statistics from `kiln calibrate` (.kcal)");
  Sub.add_option("--calib-method", F.Method,
                 "minmax, percentile (default), entropy or mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}));
  Sub.add_option("--calib-percentile", F.Percentile,
                 "share of values kept in range by percentile (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  Sub.add_option("--keep-float", F.KeepFloat,
                 "keep this node (model node name or value name) or every op "
                 "of this kind in float; 'auto' keeps the fewest layers that "
                 "reach --min-sqnr (repeatable)")
      ->allow_extra_args(false);
  Sub.add_option("--min-sqnr", F.MinSqnrDb,
                 "target output SQNR in dB for --keep-float auto (default 30)");
  Sub.add_option("--sqnr-samples", F.SqnrSamples,
                 "calibration samples --keep-float auto measures on (default 16)")
      ->check(CLI::Range(uint64_t(1), uint64_t(100000)));
}

llvm::Expected<CalibrationDataOptions>
makeCalibrationDataOptions(const CalibrationFlags &F) {
  CalibrationDataOptions O;
  O.Path = F.Path;
  O.Limit = F.Limit;
  ImagePreprocess &P = O.Preprocess;
  if (!F.Config.empty())
    if (llvm::Error E = readPreprocessConfig(F.Config, P))
      return E;
  if (!F.Resize.empty()) {
    int64_t H = 0, W = 0;
    bool Pair = false;
    if (llvm::Error E = parseImageSize(F.Resize, "--calib-resize", H, W, Pair))
      return E;
    P.ResizeShorter = Pair ? 0 : H;
    P.ResizeHeight = Pair ? H : 0;
    P.ResizeWidth = Pair ? W : 0;
  }
  if (!F.Crop.empty()) {
    bool Pair = false;
    if (llvm::Error E = parseImageSize(F.Crop, "--calib-crop", P.CropHeight,
                                       P.CropWidth, Pair))
      return E;
  }
  if (!F.Mean.empty())
    if (llvm::Error E = parseChannelValues(F.Mean, "--calib-mean", P.Mean))
      return E;
  if (!F.Std.empty())
    if (llvm::Error E = parseChannelValues(F.Std, "--calib-std", P.Std))
      return E;
  if (F.Scale != 0)
    P.Scale = F.Scale;
  if (!F.Channels.empty())
    P.Bgr = F.Channels == "bgr";
  if (!F.Layout.empty())
    P.ChannelsLast = F.Layout == "nhwc";
  return O;
}

llvm::Expected<QuantizeOptions> makeQuantizeOptions(const QuantizeFlags &F) {
  QuantizeOptions O;
  O.Mode = *parseQuantizeMode(F.Mode);
  auto Data = makeCalibrationDataOptions(F.Calib);
  if (!Data)
    return Data.takeError();
  O.Data = std::move(*Data);
  O.StatsPath = F.StatsPath;
  O.Method.Method = *parseCalibrationMethod(F.Method);
  O.Method.Percentile = F.Percentile;
  O.Bins = F.Calib.Bins;
  O.KeepFloat = F.KeepFloat;
  O.MinSqnrDb = F.MinSqnrDb;
  O.SqnrSamples = F.SqnrSamples;
  O.Threads = F.Calib.Threads;
  O.CalibrationEngine = calibrationEngine(F.Calib);
  O.Progress = makeProgressBar("calibrating");
  bool Calibrates = !O.Data.Path.empty() || !O.StatsPath.empty();
  if (O.Mode != QuantizeMode::Int8 && Calibrates)
    return usageError("--calib and --calib-stats are for --quantize int8 "
                      "(fp16 and int8-dynamic need no calibration)");
  if (O.Mode == QuantizeMode::None && !O.KeepFloat.empty())
    return usageError("--keep-float needs --quantize");
  return O;
}

} // namespace kiln
