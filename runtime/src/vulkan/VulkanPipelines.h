// The Vulkan executor's compute pipelines: one shader module, descriptor set
// layout (n storage buffers) and pipeline layout (with the shader's push
// constant range) per VulkanShader, and one pipeline per distinct (shader,
// specialization constants) pair among the dispatches, all created through
// one VkPipelineCache (PipelineCache.h).
#pragma once

#include "loader/SpirvReflection.h"
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

  /// Creates everything P's dispatches need; Modules is the loader's
  /// reflection (LoadedModel::VulkanModules).
  Status create(const Device &D, const fb::VulkanPayload &P,
                const std::vector<VulkanModuleInfo> &Modules,
                VkPipelineCache Cache);

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
