// One side of `kiln diff`: a model in IR form (.onnx, .pt, .kir), run by the
// reference interpreter, or a compiled .kiln file, run by the kiln runtime.
// Both are seen the same way for the structural diff: a list of nodes, each
// with its op and its provenance (the IR's loc(...), or the .kiln
// Operator.sources of schema 1.2).
#pragma once

#include "Tooling/CompiledModel.h"
#include "Tooling/KilnFileStats.h"

#include "IR/Graph.h"
#include "IR/InputShapes.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct DiffNode {
  std::string Op;   // IR op ("conv"), or lowercased runtime kind ("conv_2d")
  std::string Name; // display name
  std::vector<std::string> Sources;
  const Node *IrNode = nullptr; // IR models only
};

class DiffModel {
public:
  /// Loads Path by extension; a .kiln file is verified and opened with the
  /// runtime.
  static llvm::Expected<DiffModel> load(llvm::StringRef Path,
                                        const InputShapeMap &Shapes);

  bool isCompiled() const { return Compiled.has_value(); }
  /// A .kiln file's target ("cpu", "vulkan", ...); "" for IR models.
  std::string target() const { return Compiled ? Compiled->target() : ""; }
  /// How a .kiln side's session is created (threads, kernels, Vulkan
  /// options); run() sets keep_intermediates itself.
  void setSessionSettings(const CompiledModel::SessionSettings &S) {
    Settings = S;
  }
  /// The IR graph, or null for a .kiln file.
  const Graph *graph() const { return G.get(); }
  const std::string &path() const { return Path; }
  /// Non-constant nodes (IR) or operators grouped by the node they were
  /// lowered from (.kiln), in execution order.
  const std::vector<DiffNode> &nodes() const { return Nodes; }
  /// Op -> count (constants not counted).
  const std::map<std::string, int64_t> &ops() const { return Ops; }
  const std::vector<CompiledIo> &inputs() const { return Inputs; }
  const std::vector<std::string> &outputNames() const { return OutputNames; }

  /// One intermediate result, as the IR sees it (f32, NCHW): an IR node's
  /// result 0, or a .kiln operator's output 0 (transposed back from NHWC and
  /// dequantized, KilnTensorView.h), with the provenance it carries.
  struct LayerValue {
    const std::vector<std::string> &Sources;
    const std::string &Name; // node or operator name
    const std::string &Op;   // IR op, or lowercased runtime kind
    size_t Order;            // execution order within this model
    const Tensor &Value;
    /// The value's own name: the IR result's, or the .kiln tensor's (which
    /// keeps the IR value's name it was lowered from).
    const std::string &ValueName;
    /// IR models: the result's declared type (its quantization for a
    /// quantize node's int8 levels); null for a .kiln.
    const TensorType *IrType;
    /// .kiln: one quantum of the operator's int8 output (its per-tensor
    /// scale); nullopt for a float one, and in IR models.
    std::optional<double> Quantum;
  };
  using LayerObserver = std::function<void(const LayerValue &)>;
  /// What the layers after L read in place of L's result: a value in L's
  /// view (f32, channels-first), or null to keep L's own.
  using LayerSubstitute = std::function<const Tensor *(const LayerValue &)>;
  /// Runs the model; Observe (optional) sees every layer's result, in
  /// execution order. For a .kiln the session then keeps intermediates.
  /// With Substitute (.kiln on the CPU only), the session steps through the
  /// operators and, after each one Observe saw, writes the value Substitute
  /// gives into its output (quantized to the tensor's grid where it is
  /// int8), so that each layer runs on those values, not on its
  /// predecessors' own; graph outputs are not replaced.
  llvm::Expected<std::vector<Tensor>> run(llvm::ArrayRef<Tensor> In,
                                          LayerObserver Observe = nullptr,
                                          LayerSubstitute Substitute = nullptr);
  /// .kiln: the sources of each operator, in execution order (LayerValue's
  /// Order indexes it); empty for IR models.
  std::vector<std::vector<std::string>> operatorSources() const;
  /// .kiln, after a run with Substitute: how many layers had their output
  /// replaced.
  size_t substitutedLayers() const { return Substituted; }
  /// .kiln, after a run with Substitute: the layers (operator names) that
  /// had a value to take and could not (its shape or type does not fit the
  /// tensor): the layers after them run on what they computed.
  const std::vector<std::string> &unsubstitutedLayers() const {
    return Unsubstituted;
  }
  /// .kiln: the operators (names) whose output the last observed run could
  /// not read back from the session, so that a per-layer report says which
  /// layers it lacks instead of silently having fewer.
  const std::vector<std::string> &unreadLayers() const { return Unread; }

private:
  std::string Path;
  std::unique_ptr<Graph> G;
  std::optional<CompiledModel> Compiled;
  std::vector<DiffNode> Nodes;
  std::map<std::string, int64_t> Ops;
  std::vector<CompiledIo> Inputs;
  std::vector<std::string> OutputNames;
  /// .kiln: every operator in order (not grouped), for LayerValue.
  struct CompiledOperator {
    std::string Name, Kind;
    std::vector<std::string> Sources;
  };
  std::vector<CompiledOperator> Operators;
  bool SessionCreated = false;
  CompiledModel::SessionSettings Settings;
  std::vector<std::string> Unread;
  size_t Substituted = 0;
  std::vector<std::string> Unsubstituted;
};

} // namespace kiln
