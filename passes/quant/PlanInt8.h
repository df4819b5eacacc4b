// Planning static int8 quantization from calibration statistics: which nodes
// become int8, each activation's range (calibration method) and parameters,
// each weight's per-channel scales, and why the other layers stay float.
// applyInt8Plan writes the plan into the graph as q(...) annotations, which
// the insert-qdq pass then turns into QDQ.
#pragma once

#include "passes/quant/CalibrationMethod.h"
#include "passes/quant/CalibrationStats.h"
#include "passes/quant/Int8Scheme.h"

#include "IR/Graph.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln {

struct Int8PlanOptions {
  CalibrationMethodOptions Method;
  /// Nodes to keep in float, with the reason to report.
  std::map<const Node *, std::string> KeepFloat;
};

struct PlannedActivation {
  const Value *V = nullptr;
  ActivationRange Range;
  AffineQuant Quant;
};

struct FloatLayer {
  const Node *N = nullptr;
  std::string Reason;
};

struct Int8Plan {
  std::set<const Node *> Quantized;
  std::vector<const Node *> QuantizedInOrder;
  std::vector<PlannedActivation> Activations; // in graph order
  std::map<const Node *, QuantParams> Weights; // per weighted node
  std::vector<FloatLayer> Float;               // in graph order
  /// Non-empty: the first activation that needs an int8 range and whose
  /// statistics cannot give one ("tensor 'x': ..."; whyNotQuantizable).
  std::string Refusal;
};

/// Stats must come from G (or an exact copy of it): ordinals are G's.
Int8Plan planInt8(const Graph &G, const CalibrationStats &Stats,
                  const Int8PlanOptions &Opts);

/// Annotates G: activation values get their parameters in their type, and
/// each quantized weighted node reads an annotated copy of its weight
/// constant (sharing the bytes).
void applyInt8Plan(Graph &G, const Int8Plan &Plan);

/// Nodes that compute float values and are neither constants nor
/// quantize/dequantize: the "layers" reports talk about.
bool isFloatLayer(const Node &N);

} // namespace kiln
