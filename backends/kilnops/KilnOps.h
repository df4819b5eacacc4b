// The kiln-operator lowering, the stage every target starts from: an
// optimized IR graph becomes a KilnModule of the runtime's operators, which
// the CPU target writes as it is (its executor runs them on XNNPACK, oneDNN
// and the reference kernels) and the Vulkan and NNAPI targets lower further
// into their payloads. Activations are NHWC between the operators that want
// it, weights are pre-packed in XNNPACK's layouts, and fused activations
// become clamp bounds.
#pragma once

#include "backends/common/KilnModule.h"
#include "backends/kilnops/LoweringOptions.h"

#include "IR/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// What one IR node became, for `kiln convert --stats`.
struct KilnOpsNodeReport {
  std::string Node; // display name
  std::string Op;
  /// Runtime operators emitted for it, with their engines (a layout
  /// transpose counts for the node that needed it).
  std::vector<std::pair<std::string, std::string>> Ops;
  /// It runs as int8 operators (a QDQ pattern, QuantLowering.h).
  bool Int8 = false;
};

struct KilnOpsResult {
  KilnModule Module;
  std::vector<KilnOpsNodeReport> Nodes;
  /// The tensor that holds each computed value of the graph (a node
  /// result, NCHW or NHWC), for reading them after a run (calibration on
  /// the runtime). Constants and values no tensor holds are absent.
  llvm::DenseMap<const Value *, int32_t> ValueTensors;
  /// What the module's segments may point into besides the caller's graph
  /// (the copy a batch-polymorphic file was lowered from).
  std::shared_ptr<const void> KeepAlive;
};

/// Whether a node runs on the CPU target.
struct KilnOpSupport {
  bool Supported = true;
  std::string Reason; // why not
};
KilnOpSupport checkKilnOpSupport(const Node &N);

/// Bad-input error listing every dynamic input and every node the CPU
/// target cannot run, one line each: "node 'x' (op): reason".
llvm::Error checkKilnOpsGraph(const Graph &G);

/// The IR ops the CPU target has rules for, sorted (`kiln targets`).
std::vector<std::string> kilnOpsSupportedOps();

/// Compiles G. A graph whose inputs have symbolic dims ("N") gives a
/// batch-polymorphic module (schema 1.9) where every operator allows it,
/// and otherwise an error naming the operator. Every unsupported node is listed in one
/// bad-input error, one line per node: "node 'x' (op): reason".
/// Metadata gets the target and the graph's inputs and outputs; the caller
/// adds the rest (producer, pipeline, source hash).
llvm::Expected<KilnOpsResult> lowerToKilnOps(const Graph &G,
                                             const LoweringOptions &Opts = {});

} // namespace kiln
