#include "vulkan/VulkanDevice.h"

#include <cstring>

namespace kiln::rt::vk {

namespace {

constexpr const char *ValidationLayer = "VK_LAYER_KHRONOS_validation";

bool hasLayer(const char *Name) {
  uint32_t N = 0;
  vkEnumerateInstanceLayerProperties(&N, nullptr);
  std::vector<VkLayerProperties> Layers(N);
  vkEnumerateInstanceLayerProperties(&N, Layers.data());
  for (const VkLayerProperties &L : Layers)
    if (std::strcmp(L.layerName, Name) == 0)
      return true;
  return false;
}

int computeQueueFamily(VkPhysicalDevice P) {
  uint32_t N = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(P, &N, nullptr);
  std::vector<VkQueueFamilyProperties> Families(N);
  vkGetPhysicalDeviceQueueFamilyProperties(P, &N, Families.data());
  for (uint32_t I = 0; I < N; ++I)
    if (Families[I].queueFlags & VK_QUEUE_COMPUTE_BIT)
      return int(I);
  return -1;
}

bool hasDeviceExtension(VkPhysicalDevice P, const char *Name) {
  uint32_t N = 0;
  vkEnumerateDeviceExtensionProperties(P, nullptr, &N, nullptr);
  std::vector<VkExtensionProperties> All(N);
  vkEnumerateDeviceExtensionProperties(P, nullptr, &N, All.data());
  for (const VkExtensionProperties &E : All)
    if (std::strcmp(E.extensionName, Name) == 0)
      return true;
  return false;
}

Status failed(const char *What, VkResult R) {
  return unsupported("Vulkan: ", What, " failed (", resultName(R), ")");
}

} // namespace

const char *resultName(VkResult R) {
  switch (R) {
  case VK_SUCCESS: return "VK_SUCCESS";
  case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
  case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
  case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
  case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
  case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
  case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
  case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
  case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
  default: return "a Vulkan error";
  }
}

VKAPI_ATTR VkBool32 VKAPI_CALL
Device::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT Severity,
                  VkDebugUtilsMessageTypeFlagsEXT,
                  const VkDebugUtilsMessengerCallbackDataEXT *Data, void *Self) {
  if (Severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    auto *D = static_cast<Device *>(Self);
    std::lock_guard<std::mutex> Hold(D->Lock);
    D->Messages.push_back(Data && Data->pMessage ? Data->pMessage : "?");
  }
  return VK_FALSE;
}

Status Device::create(const DeviceOptions &Opts, std::unique_ptr<Device> &Out) {
  std::unique_ptr<Device> D(new Device());
  if (Opts.Validation && !hasLayer(ValidationLayer))
    return unsupported("Vulkan: the validation layer ", ValidationLayer,
                       " is not installed (vulkan-validationlayers)");
  auto App = vkStruct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  App.pApplicationName = "kiln";
  App.apiVersion = VK_API_VERSION_1_1;
  auto Info = vkStruct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  Info.pApplicationInfo = &App;
  const char *Extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  auto Messenger = vkStruct<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
  Messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  Messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  Messenger.pfnUserCallback = &Device::onMessage;
  Messenger.pUserData = D.get();
  if (Opts.Validation) {
    Info.enabledLayerCount = 1;
    Info.ppEnabledLayerNames = &ValidationLayer;
    Info.enabledExtensionCount = 1;
    Info.ppEnabledExtensionNames = Extensions;
    Info.pNext = &Messenger; // messages from instance creation too
  }
  if (VkResult R = vkCreateInstance(&Info, nullptr, &D->Instance))
    return R == VK_ERROR_INCOMPATIBLE_DRIVER
               ? unsupported("Vulkan: no Vulkan driver on this machine")
               : failed("creating an instance", R);
  if (Opts.Validation) {
    auto Create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(D->Instance, "vkCreateDebugUtilsMessengerEXT"));
    if (!Create ||
        Create(D->Instance, &Messenger, nullptr, &D->Messenger) != VK_SUCCESS)
      return unsupported("Vulkan: cannot install the validation messenger");
  }

  uint32_t N = 0;
  vkEnumeratePhysicalDevices(D->Instance, &N, nullptr);
  std::vector<VkPhysicalDevice> All(N);
  vkEnumeratePhysicalDevices(D->Instance, &N, All.data());
  std::vector<std::pair<VkPhysicalDevice, int>> Compute;
  for (VkPhysicalDevice P : All)
    if (int F = computeQueueFamily(P); F >= 0)
      Compute.push_back({P, F});
  if (Compute.empty())
    return unsupported("Vulkan: no device with a compute queue (", N,
                       " device(s) found)");
  int Pick = Opts.DeviceIndex < 0 ? 0 : Opts.DeviceIndex;
  if (size_t(Pick) >= Compute.size())
    return invalidArgument("Vulkan: device ", Pick, " asked for, but only ",
                           Compute.size(), " have a compute queue");
  D->Phys = Compute[size_t(Pick)].first;
  uint32_t Family = uint32_t(Compute[size_t(Pick)].second);
  D->Family = Family;
  {
    uint32_t NF = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(D->Phys, &NF, nullptr);
    std::vector<VkQueueFamilyProperties> Families(NF);
    vkGetPhysicalDeviceQueueFamilyProperties(D->Phys, &NF, Families.data());
    D->TimestampBits = Families[Family].timestampValidBits;
  }
  vkGetPhysicalDeviceProperties(D->Phys, &D->Props);
  vkGetPhysicalDeviceMemoryProperties(D->Phys, &D->Memory);

  // The 16-bit features are queried (and enabled) through pNext chains;
  // shaderFloat16 needs its extension on a Vulkan 1.1 instance.
  bool HasF16Ext = hasDeviceExtension(D->Phys, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  auto HaveF16 = vkStruct<VkPhysicalDeviceShaderFloat16Int8Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  auto Have16 = vkStruct<VkPhysicalDevice16BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  auto Have = vkStruct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  Have.pNext = &Have16;
  if (HasF16Ext)
    Have16.pNext = &HaveF16;
  vkGetPhysicalDeviceFeatures2(D->Phys, &Have);
  if (Opts.ShaderFloat16 && !HaveF16.shaderFloat16)
    return unsupported("Vulkan: the model needs shaderFloat16, which ",
                       D->Props.deviceName, " does not have");
  if (Opts.StorageBuffer16BitAccess && !Have16.storageBuffer16BitAccess)
    return unsupported("Vulkan: the model needs storageBuffer16BitAccess, "
                       "which ", D->Props.deviceName, " does not have");

  // A .kiln file is untrusted: kiln's kernels check every index against
  // their bindings, and robustBufferAccess, where the device has it, also
  // holds accesses inside them (defence in depth, unless turned off).
  auto WantF16 = vkStruct<VkPhysicalDeviceShaderFloat16Int8Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
  auto Want16 = vkStruct<VkPhysicalDevice16BitStorageFeatures>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
  auto Want = vkStruct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  D->Robust = Opts.RobustBufferAccess &&
              Have.features.robustBufferAccess == VK_TRUE;
  Want.features.robustBufferAccess = D->Robust ? VK_TRUE : VK_FALSE;
  std::vector<const char *> DevExtensions;
  void **Tail = &Want.pNext;
  if (Opts.StorageBuffer16BitAccess) {
    Want16.storageBuffer16BitAccess = VK_TRUE;
    *Tail = &Want16;
    Tail = &Want16.pNext;
  }
  D->Float16 = Opts.ShaderFloat16 ||
               (Opts.PreferShaderFloat16 && HaveF16.shaderFloat16);
  if (D->Float16) {
    WantF16.shaderFloat16 = VK_TRUE;
    *Tail = &WantF16;
    DevExtensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  float Priority = 1.f;
  auto QueueInfo = vkStruct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  QueueInfo.queueFamilyIndex = Family;
  QueueInfo.queueCount = 1;
  QueueInfo.pQueuePriorities = &Priority;
  auto DevInfo = vkStruct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  DevInfo.queueCreateInfoCount = 1;
  DevInfo.pQueueCreateInfos = &QueueInfo;
  DevInfo.pNext = &Want;
  DevInfo.enabledExtensionCount = uint32_t(DevExtensions.size());
  DevInfo.ppEnabledExtensionNames = DevExtensions.data();
  if (VkResult R = vkCreateDevice(D->Phys, &DevInfo, nullptr, &D->Dev))
    return failed("creating the device", R);
  vkGetDeviceQueue(D->Dev, Family, 0, &D->Queue);
  auto PoolInfo = vkStruct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  PoolInfo.queueFamilyIndex = Family;
  PoolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  if (VkResult R = vkCreateCommandPool(D->Dev, &PoolInfo, nullptr, &D->Pool))
    return failed("creating a command pool", R);
  Out = std::move(D);
  return Status::ok();
}

Device::~Device() {
  if (Dev) {
    vkDeviceWaitIdle(Dev);
    if (Pool)
      vkDestroyCommandPool(Dev, Pool, nullptr);
    vkDestroyDevice(Dev, nullptr);
  }
  if (Messenger) {
    auto Destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(Instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (Destroy)
      Destroy(Instance, Messenger, nullptr);
  }
  if (Instance)
    vkDestroyInstance(Instance, nullptr);
}

std::vector<std::string> Device::validationMessages() const {
  std::lock_guard<std::mutex> Hold(Lock);
  return Messages;
}

int Device::memoryType(uint32_t Bits, VkMemoryPropertyFlags Flags) const {
  for (uint32_t I = 0; I < Memory.memoryTypeCount; ++I)
    if ((Bits & (1u << I)) &&
        (Memory.memoryTypes[I].propertyFlags & Flags) == Flags)
      return int(I);
  return -1;
}

} // namespace kiln::rt::vk
