// The Vulkan executor's memory: one VkBuffer with its own allocation per
// VulkanBuffer of the file (no sub-allocator: a model has a handful), in
// device-local memory for ARENA and WEIGHTS and host-visible memory for
// INPUT, OUTPUT and the keep_intermediates readback; and one-off command
// submissions (weight uploads through a staging buffer).
#pragma once

#include "vulkan/VulkanDevice.h"

#include <functional>

namespace kiln::rt::vk {

enum class MemoryUse {
  /// Fastest for the device; mapped too where it is host-visible
  /// (integrated GPUs, lavapipe).
  DeviceLocal,
  /// Mapped for the buffer's lifetime; coherent where the device has such
  /// memory (else Coherent is false: flush and invalidate).
  HostVisible,
};

struct DeviceBuffer {
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  VkDeviceSize Size = 0;
  /// The mapped bytes, or null when the memory is not host-visible.
  uint8_t *Mapped = nullptr;
  bool Coherent = false;
};

/// A storage buffer (also a transfer source and destination) of Size bytes.
/// KILN_ERROR_OUT_OF_MEMORY when the device cannot hold it.
Status createBuffer(const Device &D, VkDeviceSize Size, MemoryUse Use,
                    DeviceBuffer &Out);
/// Frees B (a null buffer is ignored) and resets it.
void destroyBuffer(VkDevice Dev, DeviceBuffer &B);
/// Makes the host's writes to B visible to the device (non-coherent only).
void flushToDevice(VkDevice Dev, const DeviceBuffer &B);
/// Makes the device's writes to B visible to the host (non-coherent only).
void invalidateForHost(VkDevice Dev, const DeviceBuffer &B);

/// Records commands with Record into a fresh command buffer, submits it and
/// waits for it.
Status submitOnce(const Device &D,
                  const std::function<void(VkCommandBuffer)> &Record);

} // namespace kiln::rt::vk
