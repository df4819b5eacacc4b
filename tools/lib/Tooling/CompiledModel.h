// A .kiln file as the CLI uses it: the kiln runtime's C API wrapped in
// llvm::Error and IR Tensors, so `kiln run` and `kiln bench` share one
// loader. Runtime failures become bad-input errors naming the file.
#pragma once

#include "kiln/kiln.h"
#include "IR/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>


namespace kiln {

struct CompiledIo {
  std::string Name;
  TensorType Type;
};

class CompiledModel {
public:
  ~CompiledModel();
  CompiledModel(CompiledModel &&) = default;

  /// Maps and verifies Path.
  static llvm::Expected<CompiledModel> load(llvm::StringRef Path);

  const std::vector<CompiledIo> &inputs() const { return Inputs; }
  /// The file's target: "cpu", "vulkan".
  std::string target() const;
  bool isVulkan() const { return target() == "vulkan"; }
  const std::vector<CompiledIo> &outputs() const { return Outputs; }
  /// A batch-polymorphic file (schema 1.9): its symbolic dims are unknown
  /// dims in inputs() and outputs(), and run() sizes the session for the
  /// inputs it is given.
  bool isPolymorphic() const;

  struct SessionSettings {
    /// 0: every core.
    unsigned Threads = 1;
    bool ForceReference = false;
    /// Every operator output stays readable after a run (operatorOutput).
    bool KeepIntermediates = false;
    /// XNNPACK for the convolutions oneDNN would run (kiln_session_options).
    bool DisableOnednn = false;
    /// Converted weights on transparent huge pages (kiln_session_options).
    bool HugePages = false;
    /// Vulkan files (kiln_vulkan_options): the device (-1: the first), the
    /// validation layer, and the folder of the pipeline cache ("": none).
    int VulkanDevice = -1;
    bool VulkanValidation = false;
    std::string PipelineCacheDir;
    /// Hash every weight segment against its recorded xxHash64 first
    /// (kiln_session_options.verify_weight_hashes).
    bool VerifyWeightHashes = false;
    /// A batch-polymorphic file: the input shapes to size the session for
    /// (kiln_session_options.input_shapes); empty: every symbolic dim 1.
    std::vector<std::vector<int64_t>> InputShapes;
  };
  /// Creates the session (memory plan, kernels and their packed weights).
  llvm::Error createSession(const SessionSettings &S);
  /// Runs the session on Inputs (in input order, types already checked;
  /// a polymorphic file's session is resized for them first) and returns
  /// copies of the outputs.
  llvm::Expected<std::vector<Tensor>> run(llvm::ArrayRef<Tensor> Inputs);
  /// Stepping through the model instead (a session that keeps
  /// intermediates): setInputs as run() does, then runOperators over every
  /// operator in as many steps as wanted, then outputValues().
  llvm::Error setInputs(llvm::ArrayRef<Tensor> Inputs);
  llvm::Error runOperators(size_t First, size_t Count);
  llvm::Expected<std::vector<Tensor>> outputValues(); // copies
  /// Runs again on the inputs set last (benchmarks).
  llvm::Error rerun();
  /// Whether the file carries a self-test (kiln convert --self-test).
  bool hasSelfTest() const;
  /// Runs the file's self-test on the session (kiln_session_self_test);
  /// an error when there is no session, no self-test, or a run fails. The
  /// inputs hold the samples afterwards.
  llvm::Expected<kiln_self_test_result> selfTest();
  /// Image input Index (`convert --image-input`): what it reads, or nullopt
  /// for an input that is not one.
  std::optional<kiln_image_info> imageInput(size_t Index) const;
  /// Sets image input Index from a frame of any size through
  /// kiln_session_set_image (after setInputs, before rerun).
  llvm::Error setImage(size_t Index, const uint8_t *Pixels, int64_t Width,
                       int64_t Height, size_t RowStride,
                       kiln_pixel_format Format);

  /// Per operator of the session: kind, source name, the kernel library
  /// that runs it, and the time of the last run when profiling.
  struct OperatorInfo {
    std::string Kind, Name;
    std::string Engine; // "xnnpack", "onednn" or "reference"
    double LastRunMs;
  };
  std::vector<OperatorInfo> operators() const;
  /// The partitions the session runs (kiln_session_partition_info): one
  /// for a file of one target, several for a partitioned file; times are
  /// the last profiled run's.
  struct PartitionInfo {
    std::string Target;
    size_t FirstOperator = 0, NumOperators = 0;
    double LastRunMs = 0, LastTransferMs = 0;
  };
  std::vector<PartitionInfo> partitions() const;
  /// Output 0 of operator Op after the last run, as the IR sees it (f32,
  /// NCHW, dequantized: KilnTensorView.h), with its tensor's name and, for
  /// an int8/uint8 tensor quantized per tensor, one quantum (its scale);
  /// nullopt when the session does not keep intermediates or the tensor
  /// has no float view.
  struct OperatorOutput {
    Tensor Value;
    std::string Name;
    std::optional<double> Quantum;
  };
  std::optional<OperatorOutput> operatorOutput(size_t Op) const;
  /// Writes Ir (f32, in operatorOutput's view) into operator Op's output 0,
  /// quantized where the tensor is int8 (KilnTensorView.h), so that the
  /// operators after Op read it. A graph output is left as it is; Refused
  /// when the tensor has no such view or Ir's shape is not the view's.
  enum class SetOutcome { Set, GraphOutput, Refused };
  SetOutcome setOperatorOutput(size_t Op, const Tensor &Ir);
  void setProfiling(bool On);
  /// What the session runs on (kiln_session_engine_info); empty strings and
  /// zeros without a session.
  struct EngineInfo {
    std::string Target, Device;
    /// What the GPU computes in (kiln_engine_info.precision); "" on the CPU.
    std::string Precision;
    uint64_t Dispatches = 0, Pipelines = 0, PipelineCacheBytes = 0;
    bool GpuTimestamps = false;
    /// CPU: weights read in place, and the file's pages dropped after a
    /// library packed them (kiln_engine_info).
    uint64_t WeightsMappedBytes = 0, WeightsReleasedBytes = 0;
  };
  EngineInfo engineInfo() const;
  size_t arenaBytes() const;
  /// Bytes of the kernels' shared working memory (0: none).
  size_t scratchBytes() const;

private:
  CompiledModel() = default;
  llvm::Error fail(const char *What) const;
  llvm::Error resizeFor(llvm::ArrayRef<Tensor> Inputs);

  struct ModelDeleter {
    void operator()(kiln_model *M) const;
  };
  struct SessionDeleter {
    void operator()(kiln_session *S) const;
  };
  std::string Path;
  std::unique_ptr<kiln_model, ModelDeleter> Model;
  std::unique_ptr<kiln_session, SessionDeleter> Session;
  std::vector<CompiledIo> Inputs, Outputs;
};

} // namespace kiln
