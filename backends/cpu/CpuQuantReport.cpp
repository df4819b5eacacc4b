#include "backends/cpu/CpuQuantReport.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

namespace kiln {

namespace {

/// Nodes that are part of the quantization itself, not layers.
bool isQuantizationNode(llvm::StringRef Op) {
  return Op == "quantize" || Op == "dequantize" || Op == "dynamic_quantize" ||
         Op == "layout" || Op == "cast";
}

int64_t int8NodeCount(const KilnOpsResult &C) {
  int64_t N = 0;
  for (const KilnOpsNodeReport &R : C.Nodes)
    N += R.Int8;
  return N;
}

} // namespace

std::vector<FloatLayerReport> floatLayersOnCpu(const QuantizeReport &Q,
                                               const KilnOpsResult &C) {
  if (Q.Mode != QuantizeMode::Int8)
    return Q.FloatLayers;
  std::vector<FloatLayerReport> Out;
  for (const KilnOpsNodeReport &R : C.Nodes) {
    if (R.Int8 || isQuantizationNode(R.Op))
      continue;
    std::string Reason = "no int8 kernel on the CPU target; runs in f32 "
                         "between dequantize and quantize";
    for (const FloatLayerReport &F : Q.FloatLayers)
      if (F.Node == R.Node)
        Reason = F.Reason;
    Out.push_back({R.Node, R.Op, Reason});
  }
  return Out;
}

const char *cpuExecutionOf(QuantizeMode M) {
  switch (M) {
  case QuantizeMode::None:
    return "f32";
  case QuantizeMode::Fp16:
    return "f16 weights in the file, widened to f32 once at load; f32 kernels";
  case QuantizeMode::Int8Dynamic:
    return "int8 weights in the file, widened to f32 once at load (this "
           "XNNPACK has no qd8 dynamic-int8 kernels); activations stay f32";
  case QuantizeMode::Int8:
    return "int8 operators for the int8 patterns (XNNPACK qs8/qc8; oneDNN "
           "for the convolutions on x86), f32 elsewhere";
  }
  return "";
}

void printQuantizeSummary(llvm::raw_ostream &OS, const QuantizeReport &Q,
                          const KilnOpsResult &C,
                          const std::vector<FloatLayerReport> &Float,
                          bool Stats) {
  double Ratio = Q.ConstantBytesBefore ? double(Q.ConstantBytesAfter) /
                                             double(Q.ConstantBytesBefore)
                                       : 1.0;
  OS << "  quantize:   " << quantizeModeName(Q.Mode);
  if (!Q.Method.empty())
    OS << " (method " << Q.Method << ", " << Q.CalibrationSamples
       << " calibration samples)";
  OS << llvm::formatv("; constants {0} -> {1} bytes ({2:f3}x)\n",
                      Q.ConstantBytesBefore, Q.ConstantBytesAfter, Ratio);
  OS << "  runs as:    " << cpuExecutionOf(Q.Mode) << '\n';
  if (Q.Mode == QuantizeMode::Int8)
    OS << "  int8 nodes: " << int8NodeCount(C) << ", float layers: "
       << Float.size() << '\n';
  for (const FloatLayerReport &F : Float)
    OS << "  float:      '" << F.Node << "' (" << F.Op << "): " << F.Reason
       << '\n';
  if (Stats)
    printQuantizeReport(Q, OS);
}

llvm::json::Value quantizeJson(const QuantizeReport &Q,
                               const KilnOpsResult &C,
                               const std::vector<FloatLayerReport> &Float) {
  llvm::json::Value V = quantizeReportToJson(Q);
  llvm::json::Object &O = *V.getAsObject();
  llvm::json::Array Layers, Int8Nodes;
  for (const FloatLayerReport &F : Float)
    Layers.push_back(llvm::json::Object{
        {"node", F.Node}, {"op", F.Op}, {"reason", F.Reason}});
  for (const KilnOpsNodeReport &R : C.Nodes)
    if (R.Int8)
      Int8Nodes.push_back(llvm::json::Object{{"node", R.Node}, {"op", R.Op}});
  O["cpu_float_layers"] = std::move(Layers);
  O["cpu_int8_nodes"] = std::move(Int8Nodes);
  O["cpu_execution"] = cpuExecutionOf(Q.Mode);
  return V;
}

} // namespace kiln
