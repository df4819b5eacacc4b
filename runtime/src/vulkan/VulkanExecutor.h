// The Vulkan target's executor: it runs a file's VulkanPayload and never
// reads its operators (except to know which activations an operator wrote,
// for keep_intermediates). At creation it checks the payload against the
// device's limits, creates one buffer per VulkanBuffer (VulkanBuffers.h),
// uploads the weights once, creates the pipelines (VulkanPipelines.h, through
// PipelineCache.h) and one descriptor set per dispatch, and records ONE
// command buffer with every dispatch, each followed by a compute-to-compute
// barrier; run() submits it and waits. Profiling runs a second recording
// with timestamps around each dispatch; keep_intermediates copies each
// operator's outputs to a host-visible readback buffer after its dispatches
// (gpu/GpuReadback.h converts them to the host layout).
#pragma once

#include "target/Executor.h"
#include "vulkan/PipelineCache.h"
#include "vulkan/VulkanBuffers.h"
#include "vulkan/VulkanPipelines.h"

#include <map>
#include <string>

namespace kiln::rt::vk {

class VulkanExecutor final : public Executor {
public:
  ~VulkanExecutor() override;
  VulkanExecutor(const VulkanExecutor &) = delete;
  VulkanExecutor &operator=(const VulkanExecutor &) = delete;

  /// KILN_ERROR_UNSUPPORTED without a usable device or a feature the model
  /// needs, KILN_ERROR_INVALID_MODEL when the file exceeds the device's
  /// limits, KILN_ERROR_OUT_OF_MEMORY when its buffers do not fit.
  static Status create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<VulkanExecutor> &Out);

  /// Graph inputs and outputs: their mapped buffers. Kept activations: their
  /// bytes in the host layout after a run (every activation with a place,
  /// aliases included). Constants: their bytes in the file (PACKED). Other
  /// activations (not kept, or with no place): null.
  uint8_t *hostTensor(size_t T) const override;
  Status run(std::vector<uint64_t> *OpTimes) override;
  const char *engine(size_t) const override { return "vulkan"; }
  /// The ARENA buffers' bytes.
  uint64_t arenaBytes() const override { return ArenaBytes; }
  EngineInfo engineInfo() const override;

  const Device &device() const { return *Dev; }
  /// The validation layer's warnings and errors so far (validation on).
  std::vector<std::string> validationMessages() const {
    return Dev->validationMessages();
  }
  const PipelineCache &pipelineCache() const { return Cache; }
  /// Distinct compute pipelines the session created.
  size_t numPipelines() const { return Pipes.count(); }
  /// What the session computes in, for tools to print: "fp32"; "fp16
  /// storage, fp16 arithmetic" (the fp16-arithmetic twins run, on a device
  /// with shaderFloat16, or the file asks for shaderFloat16); or "fp16
  /// storage, fp32 arithmetic", with why in parentheses where the file has
  /// twins: "(device lacks shaderFloat16)" or "(fp16_arithmetic off)".
  const std::string &precision() const { return Precision; }
  /// Whether run(OpTimes) measures each dispatch (timestamp queries).
  bool timesDispatches() const { return TimedCmd != VK_NULL_HANDLE; }

private:
  VulkanExecutor() = default;
  const fb::VulkanPayload &payload() const {
    return *Model->Root->payload_as_VulkanPayload();
  }
  Status checkDeviceLimits() const;
  /// With KILN_VULKAN_VALIDATION=fatal, an error quoting the first
  /// validation message so far.
  Status validationVerdict() const;
  Status createBuffers();
  Status uploadWeights();
  Status createDescriptorSets();
  Status planReadback();
  Status recordCommands();
  void record(VkCommandBuffer Cmd, bool Timestamps) const;

  /// One activation copied back after a dispatch (keep_intermediates).
  struct Readback {
    size_t Tensor;
    uint32_t Buffer;
    VkDeviceSize From, To, Size;
  };
  /// A kept activation that lives in a host-visible INPUT or OUTPUT buffer
  /// (e.g. a reshape aliasing a graph input): converted from the mapped
  /// bytes after the run, no copy recorded.
  struct HostRead {
    size_t Tensor;
    uint32_t Buffer;
    VkDeviceSize Offset;
  };

  std::shared_ptr<const LoadedModel> Model;
  bool KeepIntermediates = false;
  bool ValidationFatal = false;
  std::string Precision;
  // Declared first: destroyed last, after everything made on it.
  std::unique_ptr<Device> Dev;
  PipelineCache Cache;
  Pipelines Pipes;
  std::vector<DeviceBuffer> Buffers;
  DeviceBuffer ReadbackBuffer;
  uint64_t ArenaBytes = 0;
  /// Bytes of the mapped file dropped after their upload (uploadWeights).
  uint64_t WeightsReleasedBytes = 0;
  /// Graph input/output tensor -> its INPUT/OUTPUT buffer.
  std::map<size_t, size_t> IoBuffer;
  /// Copies after dispatch i (keep_intermediates), by dispatch.
  std::vector<std::vector<Readback>> CopiesAfter;
  std::vector<HostRead> HostReads;
  /// Kept activations in the host layout, by tensor.
  std::map<size_t, std::vector<uint8_t>> HostCopies;
  VkDescriptorPool DescriptorPool = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> Sets;
  VkCommandBuffer Cmd = VK_NULL_HANDLE, TimedCmd = VK_NULL_HANDLE;
  VkQueryPool Queries = VK_NULL_HANDLE;
  VkFence Fence = VK_NULL_HANDLE;
  /// How long a run waits for its fence (SessionOptions RunTimeoutMs).
  uint64_t RunTimeoutNs = 0;
  /// Set when a run timed out or lost the device: the GPU may still be
  /// using the session's objects, so no run starts again, and the
  /// destructor frees them only once the fence signals.
  std::string Dead;
};

} // namespace kiln::rt::vk
