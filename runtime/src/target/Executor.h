// The seam between a session and a target: one Executor per session, made
// by the file's target's entry (RuntimeTarget::CreateExecutor) when the
// session is created. The session owns what every target shares (the model,
// which inputs were set, profiling); the executor owns its device state
// (the CPU's arena and kernels, a GPU's buffers and command buffer).
#pragma once

#include "Status.h"
#include "loader/LoadedModel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct pthreadpool;

namespace kiln::rt {

/// What a session runs on, for tools (kiln_session_engine_info).
struct EngineInfo {
  /// The device: "" on the CPU; "llvmpipe (LLVM 15.0.6, 256 bits)", ...
  std::string Device;
  /// GPU dispatches one run submits (0 on the CPU).
  uint64_t Dispatches = 0;
  /// Distinct compute pipelines the session created (0 on the CPU).
  uint64_t Pipelines = 0;
  /// Bytes of the pipeline cache file the session started from (0: none).
  uint64_t PipelineCacheBytes = 0;
  /// Whether profiled runs time operators with GPU timestamp queries.
  bool GpuTimestamps = false;
  /// What the GPU computes in ("fp32", "fp16 storage, fp16 arithmetic",
  /// ...: VulkanExecutor::precision); "" on the CPU.
  std::string Precision;
  /// CPU: bytes of weights read from the model's bytes (mapped), and of
  /// weights a kernel library packed into its own memory, whose file pages
  /// were dropped (SegmentRelease.h). Vulkan and Metal: 0 mapped, and the
  /// bytes of weights uploaded to the device whose file pages were dropped.
  /// A partitioned file: the sums over its partitions.
  uint64_t WeightsMappedBytes = 0;
  uint64_t WeightsReleasedBytes = 0;
};

/// What the CPU executor alone reads (kiln_cpu_options).
struct CpuOptions {
  /// Every operator on the reference kernels.
  bool ForceReference = false;
  /// XNNPACK even where this runtime has oneDNN and oneDNN takes the
  /// operator (comparing the two; what a phone build always does).
  bool DisableOnednn = false;
  /// The weights kernels convert go on transparent huge pages (WeightArena).
  bool HugePageWeights = false;
  /// The kernels choose the layouts they convert their weights to but
  /// convert none: packedWeights() describes them, with no data, for `kiln
  /// convert --prepack native` (NativeLayouts.cpp). Such a session cannot
  /// run.
  bool LayoutOnly = false;
};

/// What the Vulkan executor alone reads (kiln_vulkan_options).
struct VulkanOptions {
  /// Index among the devices with a compute queue; -1: the first.
  int DeviceIndex = -1;
  /// The Khronos validation layer on, its messages counted
  /// (VulkanExecutor::validationMessages); the environment variable
  /// KILN_VULKAN_VALIDATION=1 turns it on too; =fatal also fails the
  /// session (creation or run) on any message, for tests.
  bool Validation = false;
  /// Non-empty: the folder where compiled pipelines are cached across
  /// processes (PipelineCache.h).
  std::string PipelineCacheDir;
  /// False: an fp16 file's kernels compute in fp32 even where the device
  /// has shaderFloat16 (kiln_vulkan_options.fp16_arithmetic; the
  /// environment variable KILN_VULKAN_FP16_ARITHMETIC=off too).
  bool Fp16Arithmetic = true;
  /// False: robustBufferAccess stays off even where the device has it
  /// (kiln_vulkan_options.robust_buffer_access; the environment variable
  /// KILN_VULKAN_ROBUST_BUFFER_ACCESS=off too). The kernels' own bounds
  /// checks keep them inside their bindings either way.
  bool RobustBufferAccess = true;
  /// How long a run waits for the GPU (kiln_vulkan_options.run_timeout_ms;
  /// the environment variable KILN_VULKAN_RUN_TIMEOUT_MS too).
  uint32_t RunTimeoutMs = 30000;
};

/// What the NNAPI executor alone reads (kiln_nnapi_options).
struct NnapiOptions {
  /// The library to dlopen; "": $KILN_NNAPI_LIBRARY, else
  /// "libneuralnetworks.so".
  std::string Library;
  /// ANeuralNetworksCompilation_setPreference (nnapi::PreferenceCode):
  /// FAST_SINGLE_ANSWER.
  int32_t Preference = 1;
  /// Compile for NNAPI's devices other than its CPU only (API level 29;
  /// ignored by older libraries, where NNAPI chooses);
  /// KILN_NNAPI_DISALLOW_CPU=1 too.
  bool DisallowCpu = false;
  /// Non-empty: NNAPI's compilation cache folder (setCaching, API level
  /// 29); KILN_NNAPI_CACHE_DIR too.
  std::string CacheDir;
};

/// What the Metal executor alone reads (kiln_metal_options).
struct MetalOptions {
  /// Non-empty: an MTLBinaryArchive file (macOS 11, iOS 14) the session
  /// looks its compiled pipelines up in and adds the ones it compiles to,
  /// then writes back; a file that is missing or unreadable only costs
  /// compile time.
  std::string BinaryArchivePath;
};

struct SessionOptions {
  /// Host worker threads. 0: every core; 1: the calling thread only.
  uint32_t Threads = 0;
  /// 0: no limit on the memory for activations (and kernel scratch).
  uint64_t MaxArenaBytes = 0;
  /// Every activation keeps its own bytes for the whole run (no sharing by
  /// the memory planner), so any operator's output is readable after a run
  /// (debugging, `kiln diff --per-layer`).
  bool KeepIntermediates = false;
  /// A batch-polymorphic model's input shapes (one per graph input, empty
  /// for one the others determine); none: every symbol at 1.
  std::vector<std::vector<int64_t>> InputShapes;
  CpuOptions Cpu;
  VulkanOptions Vulkan;
  NnapiOptions Nnapi;
  MetalOptions Metal;
};

/// One part of what a session runs (a partitioned file's partition, or
/// the whole model of any other file), for profiles.
struct PartitionRun {
  fb::Target Target = fb::Target::CPU;
  size_t FirstOperator = 0, NumOperators = 0;
  /// The last profiled run: the part's own run, and the copies of its
  /// boundary inputs into it (nanoseconds).
  uint64_t RunNs = 0, TransferNs = 0;
};

class Executor {
public:
  virtual ~Executor() = default;
  /// The bytes of tensor T as the host sees them: graph inputs are written
  /// there before run(), outputs (and, with KeepIntermediates, every
  /// activation) are read there after it; constants point at the model's
  /// bytes. Each has the model's TensorDesc::Bytes.
  virtual uint8_t *hostTensor(size_t T) const = 0;
  /// Runs every operator once. With OpTimes, also records each operator's
  /// time in nanoseconds (OpTimes holds one slot per operator).
  virtual Status run(std::vector<uint64_t> *OpTimes) = 0;
  /// Runs operators [Begin, End) once, in order, on the tensors as they
  /// are: for tools that step through a model whose session keeps
  /// intermediates (Session::runOperators checks that). Executors that run
  /// the model as one program (the GPU's) refuse it.
  virtual Status runOperators(size_t Begin, size_t End) {
    (void)Begin;
    (void)End;
    return {KILN_ERROR_UNSUPPORTED,
            "this target runs the model as one program, not operator by "
            "operator"};
  }
  /// The library that runs operator Op ("xnnpack", "onednn", "kiln",
  /// "reference", later "vulkan", ...), a static string.
  virtual const char *engine(size_t Op) const = 0;
  /// Bytes the executor planned for activations, and for working memory
  /// its kernels share (0 when none).
  virtual uint64_t arenaBytes() const = 0;
  virtual uint64_t scratchBytes() const { return 0; }
  /// The device and what one run submits to it (the CPU's: all defaults).
  virtual EngineInfo engineInfo() const { return {}; }
  /// The session's worker threads, for host work beside the run (fitting a
  /// camera frame to an image input); null when the executor has none.
  virtual pthreadpool *threadPool() const { return nullptr; }
  /// The parts of a partitioned file, in run order; empty for an executor
  /// that runs the whole model itself.
  virtual std::vector<PartitionRun> partitions() const { return {}; }
};

} // namespace kiln::rt
