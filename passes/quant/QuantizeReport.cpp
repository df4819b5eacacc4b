// The quantize report as text (--stats, on stderr) and JSON (--json): what
// was quantized with which parameters, the constant bytes before and after,
// the layers that stayed float and why, and the --keep-float auto search.
#include "passes/quant/QuantizeGraph.h"

#include "IR/FloatFormat.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace kiln {

namespace {
std::string scalesText(const QuantizedTensorReport &T) {
  if (T.Scales.empty())
    return "";
  if (T.Scales.size() == 1)
    return " scale=" + formatFloat(T.Scales[0]) +
           (T.ZeroPoints.empty() ? "" : " zp=" + std::to_string(T.ZeroPoints[0]));
  auto [Lo, Hi] = std::minmax_element(T.Scales.begin(), T.Scales.end());
  return " axis=" + std::to_string(T.Axis) + ", " +
         std::to_string(T.Scales.size()) + " scales in [" + formatFloat(*Lo) +
         ", " + formatFloat(*Hi) + "]";
}

double ratio(const QuantizeReport &R) {
  return R.ConstantBytesBefore
             ? double(R.ConstantBytesAfter) / double(R.ConstantBytesBefore)
             : 1.0;
}
} // namespace

void printQuantizeReport(const QuantizeReport &R, llvm::raw_ostream &OS) {
  OS << "quantize: " << quantizeModeName(R.Mode);
  if (!R.Method.empty())
    OS << " (method " << R.Method << ", " << R.CalibrationSamples
       << " calibration samples)";
  OS << '\n'
     << llvm::formatv("  constants: {0} -> {1} bytes ({2:f3}x)\n",
                      R.ConstantBytesBefore, R.ConstantBytesAfter, ratio(R));
  OS << "  quantized nodes: " << R.QuantizedNodes
     << ", layers kept float: " << R.FloatLayers.size() << '\n';
  for (const QuantizedTensorReport &T : R.Tensors) {
    OS << "  " << llvm::left_justify(T.Kind, 10) << " '" << T.Name << "' "
       << T.Type << scalesText(T);
    if (T.Kind == "activation")
      OS << " range=[" << formatDouble(T.RangeLo) << ", "
         << formatDouble(T.RangeHi) << "]";
    OS << '\n';
  }
  for (const FloatLayerReport &F : R.FloatLayers)
    OS << "  float      '" << F.Node << "' (" << F.Op << "): " << F.Reason
       << '\n';
  if (R.AutoKeepFloat) {
    OS << llvm::formatv("  keep-float auto: target {0:f2} dB, all int8 {1:f2} "
                        "dB, result {2:f2} dB\n",
                        R.TargetSqnrDb, R.AllInt8SqnrDb, R.FinalSqnrDb);
    for (const SensitivityReport &S : R.Ranking)
      OS << llvm::formatv("    layer SQNR {0,7:f2} dB  '{1}' ({2})\n",
                          S.LayerSqnrDb, S.Node, S.Op);
  }
}

llvm::json::Value quantizeReportToJson(const QuantizeReport &R) {
  llvm::json::Array Tensors;
  for (const QuantizedTensorReport &T : R.Tensors) {
    llvm::json::Array Scales, Zps;
    for (float S : T.Scales)
      Scales.push_back(double(S));
    for (int64_t Z : T.ZeroPoints)
      Zps.push_back(Z);
    llvm::json::Object O{{"name", T.Name},
                         {"kind", T.Kind},
                         {"type", T.Type},
                         {"scales", std::move(Scales)},
                         {"zero_points", std::move(Zps)}};
    if (T.Axis >= 0)
      O["axis"] = T.Axis;
    if (T.Kind == "activation")
      O["range"] = llvm::json::Array{T.RangeLo, T.RangeHi};
    Tensors.push_back(std::move(O));
  }
  llvm::json::Array Float;
  for (const FloatLayerReport &F : R.FloatLayers)
    Float.push_back(llvm::json::Object{
        {"node", F.Node}, {"op", F.Op}, {"reason", F.Reason}});
  llvm::json::Object Out{{"mode", quantizeModeName(R.Mode)},
                         {"constant_bytes_before", int64_t(R.ConstantBytesBefore)},
                         {"constant_bytes_after", int64_t(R.ConstantBytesAfter)},
                         {"size_ratio", ratio(R)},
                         {"quantized_nodes", R.QuantizedNodes},
                         {"tensors", std::move(Tensors)},
                         {"float_layers", std::move(Float)}};
  if (!R.Method.empty()) {
    Out["method"] = R.Method;
    Out["calibration_samples"] = int64_t(R.CalibrationSamples);
  }
  if (R.AutoKeepFloat) {
    llvm::json::Array Ranking;
    for (const SensitivityReport &S : R.Ranking)
      Ranking.push_back(llvm::json::Object{
          {"node", S.Node}, {"op", S.Op}, {"layer_sqnr_db", S.LayerSqnrDb}});
    Out["keep_float_auto"] = llvm::json::Object{
        {"target_sqnr_db", R.TargetSqnrDb},
        {"all_int8_sqnr_db", R.AllInt8SqnrDb},
        {"sqnr_db", R.FinalSqnrDb},
        {"ranking", std::move(Ranking)}};
  }
  return Out;
}

} // namespace kiln
