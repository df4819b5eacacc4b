// The Vulkan target's entry in the runtime's registry (Targets.def): its
// payload is verified in every build (SPIR-V validated and reflected where
// the build has SPIRV-Tools and SPIRV-Cross); the executor needs
// KILN_WITH_VULKAN.
#include "gpu/GpuBuffersVerifier.h"
#include "target/RuntimeTarget.h"
#include "vulkan/VulkanPayloadVerifier.h"
#ifdef KILN_WITH_VULKAN
#include "vulkan/VulkanExecutor.h"
#endif

#include <cstddef>

namespace kiln::rt {

namespace {

Status verifyVulkanFile(const fb::Model &M, LoadedModel &LM) {
  if (Status S = verifyGpuIo(LM))
    return S;
  auto Info = std::make_shared<VulkanPayloadInfo>();
  if (Status S = verifyVulkanPayload(M, LM.Tensors, Info->Modules))
    return S;
  LM.Payload = std::move(Info);
  return Status::ok();
}

/// kiln_vulkan_options (fp16_arithmetic appended in 1.8,
/// robust_buffer_access in 1.12, run_timeout_ms in 1.13).
Status readVulkanOptions(const kiln_session_options &C, SessionOptions &Opts) {
  const kiln_vulkan_options *Vulkan =
      hasOptionsField(C, offsetof(kiln_session_options, vulkan)) ? C.vulkan
                                                                 : nullptr;
  if (!Vulkan)
    return Status::ok();
  constexpr size_t Fp16MathAt = offsetof(kiln_vulkan_options, fp16_arithmetic);
  constexpr size_t RobustAt = offsetof(kiln_vulkan_options, robust_buffer_access);
  constexpr size_t TimeoutAt = offsetof(kiln_vulkan_options, run_timeout_ms);
  if (Vulkan->struct_size != sizeof(kiln_vulkan_options) &&
      Vulkan->struct_size != TimeoutAt && Vulkan->struct_size != RobustAt &&
      Vulkan->struct_size != Fp16MathAt)
    return invalidArgument("kiln_session_create: vulkan options not "
                           "initialized with kiln_vulkan_options_init");
  Opts.Vulkan.DeviceIndex = Vulkan->device_index;
  Opts.Vulkan.Validation = Vulkan->validation != 0;
  if (Vulkan->pipeline_cache_dir)
    Opts.Vulkan.PipelineCacheDir = Vulkan->pipeline_cache_dir;
  if (Vulkan->struct_size > Fp16MathAt &&
      Vulkan->fp16_arithmetic == KILN_VULKAN_FP16_ARITHMETIC_OFF)
    Opts.Vulkan.Fp16Arithmetic = false;
  if (Vulkan->struct_size > RobustAt &&
      Vulkan->robust_buffer_access == KILN_VULKAN_ROBUST_BUFFER_ACCESS_OFF)
    Opts.Vulkan.RobustBufferAccess = false;
  if (Vulkan->struct_size > TimeoutAt && Vulkan->run_timeout_ms > 0)
    Opts.Vulkan.RunTimeoutMs = Vulkan->run_timeout_ms;
  return Status::ok();
}

} // namespace

const RuntimeTarget &vulkanRuntimeTarget() {
  static const RuntimeTarget Entry = [] {
    RuntimeTarget T;
    T.Loader.Value = fb::Target::VULKAN;
    T.Loader.Name = "vulkan";
    T.Loader.Payload = fb::TargetPayload::VulkanPayload;
    T.Loader.PayloadRuns = true;
    T.Loader.GpuLayouts = true;
    T.Loader.VerifyPayload = verifyVulkanFile;
    T.BuildOption = "Vulkan (KILN_WITH_VULKAN)";
#ifdef KILN_WITH_VULKAN
    T.CreateExecutor = createExecutorOf<vk::VulkanExecutor>;
#endif
    T.ReadOptions = readVulkanOptions;
    return T;
  }();
  return Entry;
}

} // namespace kiln::rt
