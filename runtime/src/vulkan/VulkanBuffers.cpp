#include "vulkan/VulkanBuffers.h"

namespace kiln::rt::vk {

namespace {

Status outOfMemory(VkDeviceSize Size, const char *What, VkResult R) {
  return {KILN_ERROR_OUT_OF_MEMORY,
          concat("Vulkan: ", What, " of ", Size, " bytes failed (",
                 resultName(R), ")")};
}

/// The first memory type that has every flag of one of Prefs, in order.
int pickMemory(const Device &D, uint32_t Bits,
               std::initializer_list<VkMemoryPropertyFlags> Prefs) {
  for (VkMemoryPropertyFlags F : Prefs)
    if (int T = D.memoryType(Bits, F); T >= 0)
      return T;
  return -1;
}

} // namespace

Status createBuffer(const Device &D, VkDeviceSize Size, MemoryUse Use,
                    DeviceBuffer &Out) {
  VkDevice Dev = D.handle();
  DeviceBuffer B;
  B.Size = Size;
  auto Info = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  Info.size = Size;
  Info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  Info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult R = vkCreateBuffer(Dev, &Info, nullptr, &B.Buffer))
    return outOfMemory(Size, "creating a buffer", R);
  VkMemoryRequirements Req;
  vkGetBufferMemoryRequirements(Dev, B.Buffer, &Req);
  constexpr VkMemoryPropertyFlags Visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  constexpr VkMemoryPropertyFlags Coherent = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  constexpr VkMemoryPropertyFlags Cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  int Type = Use == MemoryUse::DeviceLocal
                 ? pickMemory(D, Req.memoryTypeBits,
                              {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0})
                 : pickMemory(D, Req.memoryTypeBits,
                              {Visible | Coherent | Cached, Visible | Coherent,
                               Visible});
  if (Type < 0) {
    destroyBuffer(Dev, B);
    return unsupported("Vulkan: no memory type for a ",
                       Use == MemoryUse::DeviceLocal ? "device-local"
                                                     : "host-visible",
                       " buffer");
  }
  auto Alloc = vkStruct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  Alloc.allocationSize = Req.size;
  Alloc.memoryTypeIndex = uint32_t(Type);
  if (VkResult R = vkAllocateMemory(Dev, &Alloc, nullptr, &B.Memory)) {
    destroyBuffer(Dev, B);
    return outOfMemory(Size, "allocating memory", R);
  }
  if (VkResult R = vkBindBufferMemory(Dev, B.Buffer, B.Memory, 0)) {
    destroyBuffer(Dev, B);
    return outOfMemory(Size, "binding memory", R);
  }
  VkMemoryPropertyFlags Flags = D.memoryFlags(uint32_t(Type));
  if (Flags & Visible) {
    void *P = nullptr;
    if (VkResult R = vkMapMemory(Dev, B.Memory, 0, VK_WHOLE_SIZE, 0, &P)) {
      destroyBuffer(Dev, B);
      return outOfMemory(Size, "mapping memory", R);
    }
    B.Mapped = static_cast<uint8_t *>(P);
    B.Coherent = (Flags & Coherent) != 0;
  }
  Out = B;
  return Status::ok();
}

void destroyBuffer(VkDevice Dev, DeviceBuffer &B) {
  if (B.Mapped)
    vkUnmapMemory(Dev, B.Memory);
  if (B.Buffer)
    vkDestroyBuffer(Dev, B.Buffer, nullptr);
  if (B.Memory)
    vkFreeMemory(Dev, B.Memory, nullptr);
  B = DeviceBuffer();
}

void flushToDevice(VkDevice Dev, const DeviceBuffer &B) {
  if (!B.Mapped || B.Coherent)
    return;
  auto Range = vkStruct<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  Range.memory = B.Memory;
  Range.size = VK_WHOLE_SIZE;
  vkFlushMappedMemoryRanges(Dev, 1, &Range);
}

void invalidateForHost(VkDevice Dev, const DeviceBuffer &B) {
  if (!B.Mapped || B.Coherent)
    return;
  auto Range = vkStruct<VkMappedMemoryRange>(VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE);
  Range.memory = B.Memory;
  Range.size = VK_WHOLE_SIZE;
  vkInvalidateMappedMemoryRanges(Dev, 1, &Range);
}

Status submitOnce(const Device &D,
                  const std::function<void(VkCommandBuffer)> &Record) {
  VkDevice Dev = D.handle();
  auto Alloc = vkStruct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  Alloc.commandPool = D.commandPool();
  Alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  Alloc.commandBufferCount = 1;
  VkCommandBuffer Cmd = VK_NULL_HANDLE;
  if (VkResult R = vkAllocateCommandBuffers(Dev, &Alloc, &Cmd))
    return {KILN_ERROR_OUT_OF_MEMORY,
            concat("Vulkan: allocating a command buffer failed (",
                   resultName(R), ")")};
  auto Begin = vkStruct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  Begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(Cmd, &Begin);
  Record(Cmd);
  VkResult R = vkEndCommandBuffer(Cmd);
  VkFence Fence = VK_NULL_HANDLE;
  auto FenceInfo = vkStruct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  if (R == VK_SUCCESS)
    R = vkCreateFence(Dev, &FenceInfo, nullptr, &Fence);
  if (R == VK_SUCCESS) {
    auto Submit = vkStruct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    Submit.commandBufferCount = 1;
    Submit.pCommandBuffers = &Cmd;
    R = vkQueueSubmit(D.queue(), 1, &Submit, Fence);
  }
  if (R == VK_SUCCESS)
    R = vkWaitForFences(Dev, 1, &Fence, VK_TRUE, UINT64_MAX);
  if (Fence)
    vkDestroyFence(Dev, Fence, nullptr);
  vkFreeCommandBuffers(Dev, D.commandPool(), 1, &Cmd);
  if (R != VK_SUCCESS)
    return runtimeError("Vulkan: a transfer to the device failed (",
                        resultName(R), ")");
  return Status::ok();
}

} // namespace kiln::rt::vk
