// The Vulkan device on whatever this machine has (Mesa's lavapipe in CI),
// with the Khronos validation layer on: a kernel compiled to SPIR-V at build
// time (cmake/KilnShaders.cmake) runs and gives a naive loop's values, and
// the layer reports nothing. Without a Vulkan device the test fails in CI
// (CI set) and says it was skipped elsewhere.
#include "vulkan/VulkanDevice.h"

#include "TestKernels.h" // generated: kiln::testkernels::vector_add

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

using namespace kiln::rt;
using kiln::rt::vk::vkStruct;

namespace {

std::unique_ptr<vk::Device> deviceOrSkip() {
  vk::DeviceOptions O;
  O.Validation = true;
  std::unique_ptr<vk::Device> D;
  Status S = vk::Device::create(O, D);
  if (!S.isOk()) {
    if (std::getenv("CI"))
      FAIL("no Vulkan device in CI: " << S.message()
                                       << " (scripts/install-deps.sh installs "
                                          "mesa-vulkan-drivers)");
    WARN("SKIPPED: no Vulkan device here: " << S.message());
  }
  return D;
}

/// A host-visible, coherent storage buffer of Bytes.
struct HostBuffer {
  VkDevice Dev = VK_NULL_HANDLE;
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  void *Mapped = nullptr;

  HostBuffer(const vk::Device &D, VkDeviceSize Bytes) : Dev(D.handle()) {
    auto Info = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    Info.size = Bytes;
    Info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    REQUIRE(vkCreateBuffer(Dev, &Info, nullptr, &Buffer) == VK_SUCCESS);
    VkMemoryRequirements Req;
    vkGetBufferMemoryRequirements(Dev, Buffer, &Req);
    int Type = D.memoryType(Req.memoryTypeBits,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    REQUIRE(Type >= 0);
    auto Alloc = vkStruct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    Alloc.allocationSize = Req.size;
    Alloc.memoryTypeIndex = uint32_t(Type);
    REQUIRE(vkAllocateMemory(Dev, &Alloc, nullptr, &Memory) == VK_SUCCESS);
    REQUIRE(vkBindBufferMemory(Dev, Buffer, Memory, 0) == VK_SUCCESS);
    REQUIRE(vkMapMemory(Dev, Memory, 0, Bytes, 0, &Mapped) == VK_SUCCESS);
  }
  ~HostBuffer() {
    vkUnmapMemory(Dev, Memory);
    vkDestroyBuffer(Dev, Buffer, nullptr);
    vkFreeMemory(Dev, Memory, nullptr);
  }
  float *floats() const { return static_cast<float *>(Mapped); }
};

} // namespace

TEST_CASE("a SPIR-V kernel built at build time runs on the Vulkan device "
          "with no validation message",
          "[vulkan]") {
  std::unique_ptr<vk::Device> D = deviceOrSkip();
  if (!D)
    return;
  INFO("device: " << D->name());
  VkDevice Dev = D->handle();
  const uint32_t N = 1000; // not a multiple of the workgroup size (64)
  HostBuffer A(*D, N * 4), B(*D, N * 4), C(*D, N * 4);
  for (uint32_t I = 0; I < N; ++I) {
    A.floats()[I] = float(I) * 0.5f;
    B.floats()[I] = 3.f - float(I);
    C.floats()[I] = -1.f;
  }

  auto ModuleInfo = vkStruct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  ModuleInfo.codeSize = sizeof(kiln::testkernels::vector_add);
  ModuleInfo.pCode = kiln::testkernels::vector_add;
  VkShaderModule Module;
  REQUIRE(vkCreateShaderModule(Dev, &ModuleInfo, nullptr, &Module) == VK_SUCCESS);

  VkDescriptorSetLayoutBinding Bindings[3];
  for (uint32_t I = 0; I < 3; ++I)
    Bindings[I] = {I, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  auto SetInfo = vkStruct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  SetInfo.bindingCount = 3;
  SetInfo.pBindings = Bindings;
  VkDescriptorSetLayout SetLayout;
  REQUIRE(vkCreateDescriptorSetLayout(Dev, &SetInfo, nullptr, &SetLayout) ==
          VK_SUCCESS);
  VkPushConstantRange Push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  auto LayoutInfo = vkStruct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  LayoutInfo.setLayoutCount = 1;
  LayoutInfo.pSetLayouts = &SetLayout;
  LayoutInfo.pushConstantRangeCount = 1;
  LayoutInfo.pPushConstantRanges = &Push;
  VkPipelineLayout Layout;
  REQUIRE(vkCreatePipelineLayout(Dev, &LayoutInfo, nullptr, &Layout) ==
          VK_SUCCESS);
  auto PipeInfo = vkStruct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  PipeInfo.stage = vkStruct<VkPipelineShaderStageCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  PipeInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  PipeInfo.stage.module = Module;
  PipeInfo.stage.pName = "main";
  PipeInfo.layout = Layout;
  VkPipeline Pipeline;
  REQUIRE(vkCreateComputePipelines(Dev, VK_NULL_HANDLE, 1, &PipeInfo, nullptr,
                                   &Pipeline) == VK_SUCCESS);

  VkDescriptorPoolSize PoolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  auto PoolInfo = vkStruct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  PoolInfo.maxSets = 1;
  PoolInfo.poolSizeCount = 1;
  PoolInfo.pPoolSizes = &PoolSize;
  VkDescriptorPool DescPool;
  REQUIRE(vkCreateDescriptorPool(Dev, &PoolInfo, nullptr, &DescPool) ==
          VK_SUCCESS);
  auto SetAlloc = vkStruct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  SetAlloc.descriptorPool = DescPool;
  SetAlloc.descriptorSetCount = 1;
  SetAlloc.pSetLayouts = &SetLayout;
  VkDescriptorSet Set;
  REQUIRE(vkAllocateDescriptorSets(Dev, &SetAlloc, &Set) == VK_SUCCESS);
  VkDescriptorBufferInfo BufferInfos[3] = {{A.Buffer, 0, VK_WHOLE_SIZE},
                                           {B.Buffer, 0, VK_WHOLE_SIZE},
                                           {C.Buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet Writes[3];
  for (uint32_t I = 0; I < 3; ++I) {
    Writes[I] = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    Writes[I].dstSet = Set;
    Writes[I].dstBinding = I;
    Writes[I].descriptorCount = 1;
    Writes[I].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    Writes[I].pBufferInfo = &BufferInfos[I];
  }
  vkUpdateDescriptorSets(Dev, 3, Writes, 0, nullptr);

  auto CmdAlloc = vkStruct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  CmdAlloc.commandPool = D->commandPool();
  CmdAlloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  CmdAlloc.commandBufferCount = 1;
  VkCommandBuffer Cmd;
  REQUIRE(vkAllocateCommandBuffers(Dev, &CmdAlloc, &Cmd) == VK_SUCCESS);
  auto Begin = vkStruct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  REQUIRE(vkBeginCommandBuffer(Cmd, &Begin) == VK_SUCCESS);
  vkCmdBindPipeline(Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Pipeline);
  vkCmdBindDescriptorSets(Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Layout, 0, 1,
                          &Set, 0, nullptr);
  vkCmdPushConstants(Cmd, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &N);
  vkCmdDispatch(Cmd, (N + 63) / 64, 1, 1);
  // The host reads C after the fence: make the shader's writes visible.
  auto ToHost = vkStruct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  ToHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  ToHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(Cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &ToHost, 0, nullptr, 0,
                       nullptr);
  REQUIRE(vkEndCommandBuffer(Cmd) == VK_SUCCESS);
  auto FenceInfo = vkStruct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkFence Fence;
  REQUIRE(vkCreateFence(Dev, &FenceInfo, nullptr, &Fence) == VK_SUCCESS);
  auto Submit = vkStruct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  Submit.commandBufferCount = 1;
  Submit.pCommandBuffers = &Cmd;
  REQUIRE(vkQueueSubmit(D->queue(), 1, &Submit, Fence) == VK_SUCCESS);
  REQUIRE(vkWaitForFences(Dev, 1, &Fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS);

  for (uint32_t I = 0; I < N; ++I)
    REQUIRE(C.floats()[I] == float(I) * 0.5f + (3.f - float(I)));

  vkDestroyFence(Dev, Fence, nullptr);
  vkFreeCommandBuffers(Dev, D->commandPool(), 1, &Cmd);
  vkDestroyDescriptorPool(Dev, DescPool, nullptr);
  vkDestroyPipeline(Dev, Pipeline, nullptr);
  vkDestroyPipelineLayout(Dev, Layout, nullptr);
  vkDestroyDescriptorSetLayout(Dev, SetLayout, nullptr);
  vkDestroyShaderModule(Dev, Module, nullptr);
  std::vector<std::string> Messages = D->validationMessages();
  for (const std::string &M : Messages)
    UNSCOPED_INFO("validation: " << M);
  REQUIRE(Messages.empty());
}

TEST_CASE("asking for a device that is not there is one clear error",
          "[vulkan]") {
  vk::DeviceOptions O;
  O.DeviceIndex = 99;
  std::unique_ptr<vk::Device> D;
  Status S = vk::Device::create(O, D);
  REQUIRE_FALSE(S.isOk());
  REQUIRE(D == nullptr);
  // Without any Vulkan device the message says so instead.
  bool NamesIndex = S.message().find("device 99 asked for") != std::string::npos;
  bool NoDevice = S.message().find("Vulkan: no") != std::string::npos;
  REQUIRE((NamesIndex || NoDevice));
}

TEST_CASE("the validation layer's messages are counted (so zero means zero)",
          "[vulkan]") {
  std::unique_ptr<vk::Device> D = deviceOrSkip();
  if (!D)
    return;
  REQUIRE(D->validationMessages().empty());
  // A buffer with no usage bits is invalid usage the layer always reports.
  auto Info = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  Info.size = 64;
  Info.usage = 0;
  VkBuffer Buffer = VK_NULL_HANDLE;
  vkCreateBuffer(D->handle(), &Info, nullptr, &Buffer);
  if (Buffer)
    vkDestroyBuffer(D->handle(), Buffer, nullptr);
  std::vector<std::string> Messages = D->validationMessages();
  REQUIRE_FALSE(Messages.empty());
  REQUIRE_THAT(Messages[0], Catch::Contains("VUID-VkBufferCreateInfo-usage"));
}
