// kiln calibrate: calibration statistics for int8 quantization, computable in
// shards on many machines and merged exactly.
//   kiln calibrate MODEL --calib DATA [preprocessing] [--calib-limit N]
//                  [--shard i/n] [--calib-bins B] [--threads N] [-O L]
//                  [--calib-engine runtime|interpreter]
//                  [--passes a,b] [--input-shape ...] -o STATS.kcal [--json]
//   kiln calibrate --merge A.kcal B.kcal ... -o ALL.kcal [--json]
// The model goes through the same pipeline as `kiln opt`/`convert` (-O2 by
// default) before it is observed, since quantization works on that graph;
// the statistics carry its fingerprint. --json prints every tensor's range,
// histogram and the range each calibration method would choose.
#include "Command.h"
#include "Version.h"

#include "Driver/CalibrateModel.h"
#include "Driver/CompileGraph.h"
#include "Driver/ModelLoader.h"
#include "Driver/PassRecord.h"
#include "Driver/ProgressBar.h"
#include "Driver/QuantizeFlags.h"

#include "Support/Error.h"
#include "Support/Hash.h"
#include "Support/Scratch.h"
#include "passes/quant/Calibrator.h"
#include "passes/quant/Int8Scheme.h"


namespace kiln {

namespace {
struct CalibrateOptions {
  /// The model, the pipeline it is calibrated after, the data.
  CalibrateModelOptions Model;
  std::vector<std::string> Merge;
  std::string Output;
  double Percentile = 99.99;
  bool Json = false;
};

llvm::json::Value rangeJson(const TensorObserver &O, CalibrationMethod M,
                            double Percentile) {
  CalibrationMethodOptions MO;
  MO.Method = M;
  MO.Percentile = Percentile;
  ActivationRange R = chooseRange(O, MO);
  AffineQuant Q = activationQuant(R.Lo, R.Hi);
  return llvm::json::Object{{"range", llvm::json::Array{R.Lo, R.Hi}},
                            {"scale", double(Q.Scale)},
                            {"zero_point", Q.ZeroPoint}};
}

llvm::json::Value statsJson(const CalibrationStats &S, double Percentile) {
  llvm::json::Array Tensors;
  for (const ObservedValue &V : S.Values) {
    const TensorObserver &O = V.Observer;
    llvm::json::Array Bins;
    O.forEachBin([&](uint32_t Bin, uint64_t Count) {
      Bins.push_back(llvm::json::Array{int64_t(Bin), int64_t(Count)});
    });
    llvm::json::Object Methods;
    for (CalibrationMethod M :
         {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
          CalibrationMethod::Entropy, CalibrationMethod::Mse})
      Methods[calibrationMethodName(M)] = rangeJson(O, M, Percentile);
    Tensors.push_back(llvm::json::Object{
        {"name", V.Name},
        {"ordinal", int64_t(V.Ordinal)},
        {"count", int64_t(O.count())},
        {"non_finite", int64_t(O.nonFiniteCount())},
        {"min", double(O.min())},
        {"max", double(O.max())},
        {"exponent", O.exponent()},
        {"bins", std::move(Bins)},
        {"methods", std::move(Methods)}});
  }
  llvm::json::Array Shards;
  for (uint32_t Sh : S.Shards)
    Shards.push_back(int64_t(Sh));
  return llvm::json::Object{{"fingerprint", hashToHex(S.GraphHash)},
                            {"bins", int64_t(S.Bins)},
                            {"engine", S.Engine},
                            {"shard_count", int64_t(S.ShardCount)},
                            {"shards", std::move(Shards)},
                            {"dataset_samples", int64_t(S.DatasetSamples)},
                            {"samples", int64_t(S.Samples)},
                            {"tensors", std::move(Tensors)}};
}

llvm::Error runMerge(const CalibrateOptions &O, CalibrationStats &Out) {
  auto First = readStatsFile(O.Merge[0]);
  if (!First)
    return First.takeError();
  Out = std::move(*First);
  for (size_t I = 1; I < O.Merge.size(); ++I) {
    auto Next = readStatsFile(O.Merge[I]);
    if (!Next)
      return Next.takeError();
    if (llvm::Error E = mergeStats(Out, *Next, O.Merge[I]))
      return E;
  }
  return llvm::Error::success();
}

llvm::Error runCalibration(CalibrateOptions &O, CalibrationStats &Out) {
  O.Model.Compile.KilnVersion = KILN_VERSION_STRING;
  WeightSpillScope Spill(O.Output);
  auto S = calibrateModel(O.Model);
  if (!S)
    return S.takeError();
  Out = std::move(*S);
  return llvm::Error::success();
}

llvm::Error runCalibrate(CalibrateOptions &O) {
  if (O.Output.empty())
    return usageError("kiln calibrate needs -o OUT.kcal");
  if (O.Merge.empty() == O.Model.Compile.Input.empty())
    return usageError("give either a MODEL to calibrate or --merge FILES");
  CalibrationStats S;
  if (llvm::Error E = O.Merge.empty() ? runCalibration(O, S) : runMerge(O, S))
    return E;
  if (llvm::Error E = writeStatsFile(O.Output, S))
    return E;
  if (O.Json) {
    llvm::json::Value V = statsJson(S, O.Percentile);
    V.getAsObject()->try_emplace("output", O.Output);
    printJson(V);
  }
  return llvm::Error::success();
}
} // namespace

Command addCalibrateCommand(CLI::App &App) {
  auto O = std::make_shared<CalibrateOptions>();
  CLI::App *Sub = App.add_subcommand(
      "calibrate", "compute int8 calibration statistics (.kcal), in shards if "
                   "need be, or merge shards");
  Sub->add_option("model", O->Model.Compile.Input,
                  "the model (.kir, .onnx or .pt TorchScript)");
  Sub->add_option("--merge", O->Merge, "merge these .kcal shards instead")
      ->expected(1, -1);
  Sub->add_option("-o,--output", O->Output, "the statistics file to write");
  Sub->add_option("--shard", O->Model.Shard,
                  "calibrate only shard i of n: samples i, i+n, i+2n, ...");
  addCalibrationFlags(*Sub, O->Model.Calib);
  Sub->add_option("--calib-percentile", O->Percentile,
                  "percentile shown by --json (default 99.99)")
      ->check(CLI::Range(50.0, 100.0));
  addOptLevelFlag(*Sub, O->Model.Compile.Pipeline,
                  "optimization level the model is calibrated at (default 2; "
                  "use the one you convert with)");
  addPassesFlag(*Sub, O->Model.Compile.Pipeline,
                "calibrate after exactly these passes");
  addPassRecordFlag(*Sub, O->Model.Compile.PassRecordPath);
  addInputShapeOption(*Sub, O->Model.Compile.InputShapes);
  Sub->add_flag("--json", O->Json, "print the statistics as JSON on stdout");
  return {Sub, [O] { return runCalibrate(*O); }};
}

} // namespace kiln
