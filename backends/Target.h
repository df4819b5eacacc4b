// The target registry: every target kiln compiles for is one entry here, so
// the CLI never names a target. An entry gives the target's name, a one-line
// description, whether it works yet, the ops it runs and a capability check
// that lists every node it cannot run at once, its pass pipeline per -O
// level, and its lower + emit step, which returns a report for `kiln
// convert`'s text, --stats and --json. Targets.def lists the entries; each
// lives in its own folder (backends/cpu/, backends/onnx/, ...).
#pragma once

#include "IR/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Optional.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

struct QuantizeReport;
struct SelfTestRecord;

enum class TargetStatus {
  Works,   // kiln convert writes files the runtime (or other tools) run
  Planned, // registered so that `kiln targets` shows it; emit fails
};
llvm::StringRef targetStatusName(TargetStatus S);

/// What one pass did, as the convert report shows it (a copy of the pass
/// manager's record, so that targets need no pass machinery).
struct PassSummary {
  std::string Name;
  bool Changed = false;
  std::map<std::string, int64_t> Counts;
};

/// When the model arrived quantized, what adopt-imported-qdq found: the
/// weighted layers that keep the model's own scales, and those kept float
/// (its warning names each one and why).
struct ArrivedQuantized {
  int64_t KeptScales = 0, KeptFloat = 0;
  /// Dynamically quantized layers (int8 weights, inputs quantized at run
  /// time), as torch.ao.quantization.quantize_dynamic makes them.
  int64_t Dynamic = 0;
  /// "quantized; 21 layers keep the model's own int8 scales, 0 stay float"
  /// (", 2 dynamic int8" when there are such layers).
  std::string summary() const {
    std::string S = "quantized; " + std::to_string(KeptScales) +
                    " layers keep the model's own int8 scales, " +
                    std::to_string(KeptFloat) + " stay float";
    if (Dynamic)
      S += ", " + std::to_string(Dynamic) + " dynamic int8";
    return S;
  }
};
/// None when the model arrived float, or was quantized again on request
/// (RequantizedOnRequest: a --quantize mode, whose strip-qdq removed the
/// quantization adopt-imported-qdq counted).
inline llvm::Optional<ArrivedQuantized>
arrivedQuantized(const std::vector<PassSummary> &Passes,
                 bool RequantizedOnRequest) {
  llvm::Optional<ArrivedQuantized> A;
  if (RequantizedOnRequest)
    return A;
  for (const PassSummary &S : Passes) {
    if (S.Name != "adopt-imported-qdq")
      continue;
    auto Count = [&](const char *K) {
      auto It = S.Counts.find(K);
      return It == S.Counts.end() ? int64_t(0) : It->second;
    };
    if (Count("layers-kept-scales") + Count("layers-kept-float") +
            Count("layers-dynamic-int8") ==
        0)
      continue;
    A = ArrivedQuantized{Count("layers-kept-scales"), Count("layers-kept-float"),
                         Count("layers-dynamic-int8")};
  }
  return A;
}

/// Everything a target's emit step is given besides the graph: where to
/// write, what the driver did before, and the hooks that belong to the
/// driver (the source model's hash, the runtime's verifier).
struct EmitRequest {
  std::string Input, Output;
  /// The file name the model records as its source ("" for Input's): the
  /// original model when Input is kiln build's imported copy of it.
  std::string SourceModel;
  std::string ProducerVersion;
  /// "-O2", or "custom" when passes were disabled.
  std::string Pipeline;
  std::vector<PassSummary> Passes;
  /// The quantizer's rewrite passes (insert-qdq): --stats shows them; they
  /// are not part of the pipeline the file records.
  std::vector<PassSummary> QuantizePasses;
  /// Op name -> count before and after the passes, constants excluded.
  std::map<std::string, int64_t> OpsBefore, OpsAfter;
  /// The quantizer's report (mode none when the graph stayed float).
  const QuantizeReport *Quantize = nullptr;
  /// Target-specific knobs by flag name (cpu: "prepack" = portable|native).
  std::map<std::string, std::string> Options;
  /// xxHash64 of the source model, and whether reading it failed; both may
  /// block until the driver's background hash is done.
  std::function<uint64_t()> SourceHash;
  std::function<llvm::Error()> SourceHashError;
  /// Checks the finished file's bytes before they replace Output (the
  /// runtime's verifier for .kiln targets); may be empty.
  std::function<llvm::Error(llvm::StringRef Bytes)> VerifyFile;
  /// Set: the file's bytes go here, checked as a written file's are, and
  /// nothing is written to Output (a part of a partitioned file, which the
  /// driver places in the outer file; Output then only names it in
  /// reports).
  std::string *Bytes = nullptr;
  /// Set: the file carries this self-test (kiln convert --self-test). Only
  /// a whole file does: the parts of a partitioned file (Bytes set) leave
  /// it to the outer file.
  const SelfTestRecord *SelfTest = nullptr;
};

/// What emit wrote, printed by `kiln convert`: the human text (Stats adds
/// the per-pass and per-node details) or the JSON object of --json.
class TargetReport {
public:
  virtual ~TargetReport() = default;
  virtual void print(llvm::raw_ostream &OS, bool Stats) const = 0;
  virtual llvm::json::Object json() const = 0;
};

namespace fb {
struct ModelT;
} // namespace fb

/// What `kiln inspect` shows of a file of one target beyond its graph: the
/// target's own payload, rendered by code in the target's folder
/// (backends/vulkan/VulkanInspect.cpp, ...). A null member shows nothing.
struct TargetInspector {
  /// The text section after the graph; Detail with --nodes.
  std::string (*Text)(const fb::ModelT &M, bool Detail) = nullptr;
  /// The object `--json` puts under the target's name.
  llvm::json::Value (*Json)(const fb::ModelT &M) = nullptr;
  /// The kernels the file holds, in file order, and the source of one of
  /// them (`kiln inspect --kernel`; Name is one of KernelNames).
  std::vector<std::string> (*KernelNames)(const fb::ModelT &M) = nullptr;
  llvm::Expected<std::string> (*KernelSource)(const fb::ModelT &M,
                                              llvm::StringRef Name) = nullptr;
  /// The target runs every operator itself (its files leave
  /// Operator.engine at ANY): inspect names the target as each one's engine.
  bool RunsEveryOperator = false;
};

struct Target {
  const char *Name;        // the --target spelling
  const char *Description; // one line
  TargetStatus Status;
  /// The value of this target in the .kiln schema's Target enum (CPU = 1),
  /// which its files carry in Model.target (schema 1.4) and the runtime
  /// picks its executor by; 0 (UNKNOWN) when it writes no .kiln file (onnx).
  int FileTarget;
  /// Whether its files keep symbolic dims ("N") open (schema 1.9: a
  /// batch-polymorphic file). The driver refuses a graph with symbolic dims
  /// for a target whose files are static, naming the inputs.
  bool PolymorphicFiles = false;
  /// Whether it takes --quantize int8 and int8-dynamic (the GPU targets'
  /// kernels have no int8 variants yet: refuseGpuInt8).
  bool TakesInt8 = true;
  /// The IR ops the target runs (its capability table), sorted.
  std::vector<std::string> (*SupportedOps)();
  /// Chains of ops the target runs as one kernel or operation, each
  /// "name: ops (how)", for `kiln targets` (docs/targets.md has the rules).
  std::vector<std::string> FusedPatterns;
  /// Bad-input error listing every node (and input) the target cannot run,
  /// in one message.
  llvm::Error (*Check)(const Graph &G);
  /// Pass names for -O0, -O1 or -O2, in order.
  std::vector<std::string> (*Pipeline)(int OptLevel);
  /// The passes of Pipeline that the target's own options (EmitRequest's
  /// Options: --nnapi-feature-level, ...) make unnecessary, or null: an
  /// expansion into ops a newer level runs natively.
  std::vector<std::string> (*PassesNotNeeded)(
      const std::map<std::string, std::string> &Options) = nullptr;
  /// Passes of Pipeline that the target's options replace by a variant in
  /// the same place (pass -> variant), or null: at
  /// --nnapi-feature-level 29 and above NNAPI runs unroll-recurrence-keep-lstm
  /// for unroll-recurrence, since it runs such LSTMs whole.
  std::map<std::string, std::string> (*PassVariants)(
      const std::map<std::string, std::string> &Options) = nullptr;
  /// Lowers the optimized (and quantized) graph and writes Req.Output.
  llvm::Expected<std::unique_ptr<TargetReport>> (*Emit)(
      const Graph &G, const EmitRequest &Req);
  /// What `kiln inspect` shows of its files beyond the graph.
  TargetInspector Inspect = {};
};

/// Every registered target (Targets.def), in registry order.
llvm::ArrayRef<Target> allTargets();
/// The target named Name, or null.
const Target *findTarget(llvm::StringRef Name);
/// The target whose files carry FileTarget in Model.target (a schema
/// Target value; files before 1.4 carry UNKNOWN and are CPU files), or
/// null.
const Target *findTargetOfFile(int FileTarget);
/// Usage error for an unknown --target, naming the known targets.
llvm::Error unknownTargetError(llvm::StringRef Name);

} // namespace kiln
