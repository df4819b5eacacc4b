// The Vulkan device a Vulkan executor runs on: the instance (with the Khronos
// validation layer when asked, its messages counted), the first physical
// device with a compute queue (or the one asked for), a logical device with
// robustBufferAccess where the device has it (unless asked not to: kiln's
// kernels check their own bounds, docs/security.md), the 16-bit features an fp16
// model asks for (and shaderFloat16 where the device has it and the model's
// fp16-arithmetic kernels can use it), one compute queue and a command
// pool. The Vulkan executor
// (VulkanExecutor.h) runs on it.
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
  /// Features the kernels need (VulkanPayload.fp16, required_features):
  /// enabled on the device, or create fails (KILN_ERROR_UNSUPPORTED).
  bool ShaderFloat16 = false;            // VK_KHR_shader_float16_int8
  bool StorageBuffer16BitAccess = false; // Vulkan 1.1 16-bit storage
  /// shaderFloat16 enabled where the device has it, and no failure where
  /// not (the fp16-arithmetic twins of an fp16 file's shaders).
  bool PreferShaderFloat16 = false;
  /// robustBufferAccess enabled where the device has it (defence in depth:
  /// the kernels check their indices themselves).
  bool RobustBufferAccess = true;
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
  /// shaderFloat16 is enabled (asked for, and the device has it).
  bool shaderFloat16() const { return Float16; }
  uint32_t queueFamily() const { return Family; }
  /// Valid bits of the queue's timestamps (0: no timestamps).
  uint32_t timestampValidBits() const { return TimestampBits; }
  /// The validation layer's warnings and errors so far.
  std::vector<std::string> validationMessages() const;
  /// A memory type with all of Flags among the types Bits allows; -1 if none.
  int memoryType(uint32_t Bits, VkMemoryPropertyFlags Flags) const;
  /// The property flags of memory type Type.
  VkMemoryPropertyFlags memoryFlags(uint32_t Type) const {
    return Memory.memoryTypes[Type].propertyFlags;
  }

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
  bool Float16 = false;
  uint32_t Family = 0;
  uint32_t TimestampBits = 0;
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
