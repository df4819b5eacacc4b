// The Vulkan device a Vulkan executor runs on: the instance (with the Khronos
// validation layer when asked, its messages counted), the first physical
// device with a compute queue (or the one asked for), a logical device with
// robustBufferAccess where the device has it, one compute queue and a
// command pool. The executor built on it comes with the Vulkan target.
#pragma once

#include "Status.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::rt::vk {

struct DeviceOptions {
  /// Enables VK_LAYER_KHRONOS_validation and records its warnings and errors
  /// (validationMessages()); fails if the layer is not installed.
  bool Validation = false;
  /// Index into the physical devices that have a compute queue; -1: the first.
  int DeviceIndex = -1;
};

class Device {
public:
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  /// KILN_ERROR_UNSUPPORTED with one readable message when there is no
  /// Vulkan loader, driver or compute-capable device.
  static Status create(const DeviceOptions &Opts, std::unique_ptr<Device> &Out);

  VkDevice handle() const { return Dev; }
  VkPhysicalDevice physical() const { return Phys; }
  VkQueue queue() const { return Queue; }
  VkCommandPool commandPool() const { return Pool; }
  const VkPhysicalDeviceProperties &properties() const { return Props; }
  /// "llvmpipe (LLVM 15.0.6, 256 bits)", ...
  std::string name() const { return Props.deviceName; }
  bool robustBufferAccess() const { return Robust; }
  /// The validation layer's warnings and errors so far.
  std::vector<std::string> validationMessages() const;
  /// A memory type with all of Flags among the types Bits allows; -1 if none.
  int memoryType(uint32_t Bits, VkMemoryPropertyFlags Flags) const;

private:
  Device() = default;
  static VKAPI_ATTR VkBool32 VKAPI_CALL
  onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT Severity,
            VkDebugUtilsMessageTypeFlagsEXT Types,
            const VkDebugUtilsMessengerCallbackDataEXT *Data, void *Self);

  VkInstance Instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT Messenger = VK_NULL_HANDLE;
  VkPhysicalDevice Phys = VK_NULL_HANDLE;
  VkDevice Dev = VK_NULL_HANDLE;
  VkQueue Queue = VK_NULL_HANDLE;
  VkCommandPool Pool = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties Props{};
  VkPhysicalDeviceMemoryProperties Memory{};
  bool Robust = false;
  mutable std::mutex Lock;
  std::vector<std::string> Messages;
};

/// A zeroed Vulkan struct of type T with its sType set (aggregate
/// initialization would leave the compiler warning about every field).
template <typename T> T vkStruct(VkStructureType Type) {
  T V{};
  V.sType = Type;
  return V;
}

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", ... for messages.
const char *resultName(VkResult R);

} // namespace kiln::rt::vk
