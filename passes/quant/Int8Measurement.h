// Measuring int8 quantization error on calibration samples (used by
// --keep-float auto, AutoKeepFloat.h).
#pragma once

#include "passes/quant/PlanInt8.h"

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

/// SQNR in dB of a signal with energy Signal and error energy Noise, capped
/// at 200 dB (exact results).
double sqnrDb(double Signal, double Noise);

/// Energies of a reference and of its error, accumulated over tensors.
struct Energy {
  double Signal = 0, Noise = 0;
  /// Adds f32 tensors Ref and Got (same shape).
  void add(const Tensor &Ref, const Tensor &Got);
};

/// The inputs of the measured samples, and the float graph's outputs on them
/// (filled by measureLayers).
struct MeasuredSamples {
  std::vector<std::vector<Tensor>> Inputs, FloatOutputs;
};

/// Runs the float graph G on S.Inputs (storing S.FloatOutputs) and, for each
/// layer Plan quantizes (in Plan.QuantizedInOrder order), its own error:
/// PerSample[sample][layer].
llvm::Error measureLayers(const Graph &G, const Int8Plan &Plan,
                          MeasuredSamples &S,
                          std::vector<std::vector<Energy>> &PerSample,
                          unsigned Threads);

/// Output SQNR (the lowest over G's outputs) of G quantized to int8 with
/// Base's options plus Keep in float, against S.FloatOutputs.
llvm::Expected<double> measureInt8(const Graph &G, const CalibrationStats &Stats,
                                   const Int8PlanOptions &Base,
                                   const std::vector<const Node *> &Keep,
                                   const MeasuredSamples &S, unsigned Threads);

} // namespace kiln
