// The Vulkan executor's compute pipelines: one shader module, descriptor set
// layout (n storage buffers) and pipeline layout (with the shader's push
// constant range) per VulkanShader that a dispatch names, and one pipeline
// per distinct (shader, specialization constants) pair among the
// dispatches, all created through one VkPipelineCache (PipelineCache.h).
// With fp16 arithmetic a shader's module is built from the words of its
// fp16_math_variant twin (same interface, checked by the loader).
#pragma once

#include "vulkan/SpirvReflection.h"
#include "vulkan/VulkanDevice.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt::vk {

class Pipelines {
public:
  Pipelines() = default;
  ~Pipelines();
  Pipelines(const Pipelines &) = delete;
  Pipelines &operator=(const Pipelines &) = delete;
  /// Forgets every object without destroying it: for a session whose GPU
  /// work never finished (VulkanExecutor's destructor).
  void abandon() { Dev = VK_NULL_HANDLE; }

  /// Creates everything P's dispatches need; Modules is the loader's
  /// reflection (vulkanModules(), VulkanPayloadVerifier.h). With Fp16Math (the device
  /// has shaderFloat16 enabled) shaders with a twin run the twin's code.
  Status create(const Device &D, const fb::VulkanPayload &P,
                const std::vector<VulkanModuleInfo> &Modules,
                VkPipelineCache Cache, bool Fp16Math = false);

  VkPipeline pipeline(size_t Dispatch) const {
    return Pipes[DispatchPipe[Dispatch]];
  }
  VkPipelineLayout layout(size_t Shader) const { return Shaders[Shader].Layout; }
  VkDescriptorSetLayout setLayout(size_t Shader) const {
    return Shaders[Shader].SetLayout;
  }
  /// Distinct pipelines created.
  size_t count() const { return Pipes.size(); }

private:
  struct Shader {
    VkShaderModule Module = VK_NULL_HANDLE;
    VkDescriptorSetLayout SetLayout = VK_NULL_HANDLE;
    VkPipelineLayout Layout = VK_NULL_HANDLE;
  };
  VkDevice Dev = VK_NULL_HANDLE;
  std::vector<Shader> Shaders;
  std::vector<VkPipeline> Pipes;
  std::vector<size_t> DispatchPipe;
};

} // namespace kiln::rt::vk
