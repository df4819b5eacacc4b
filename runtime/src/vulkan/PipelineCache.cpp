#include "vulkan/PipelineCache.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace kiln::rt::vk {

namespace {

/// A cache file larger than this is not read (a corrupt or hostile file).
constexpr uintmax_t MaxCacheFileBytes = uintmax_t(256) << 20;

std::string cacheFileName(const VkPhysicalDeviceProperties &P) {
  char Head[64];
  std::snprintf(Head, sizeof Head, "kiln-%04x-%04x-%x-", P.vendorID,
                P.deviceID, P.driverVersion);
  std::string Name = Head;
  for (uint8_t B : P.pipelineCacheUUID) {
    char Hex[3];
    std::snprintf(Hex, sizeof Hex, "%02x", B);
    Name += Hex;
  }
  return Name + ".vkpc";
}

uint32_t word(const std::string &Data, size_t At) {
  uint32_t V;
  std::memcpy(&V, Data.data() + At, 4);
  return V;
}

} // namespace

bool pipelineCacheMatches(const std::string &Data,
                          const VkPhysicalDeviceProperties &Props) {
  // VkPipelineCacheHeaderVersionOne: headerSize, headerVersion, vendorID,
  // deviceID (uint32 each), then pipelineCacheUUID[16].
  constexpr size_t HeaderBytes = 16 + VK_UUID_SIZE;
  if (Data.size() < HeaderBytes)
    return false;
  uint32_t Size = word(Data, 0);
  return Size >= HeaderBytes && Size <= Data.size() &&
         word(Data, 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
         word(Data, 8) == Props.vendorID && word(Data, 12) == Props.deviceID &&
         std::memcmp(Data.data() + 16, Props.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

Status PipelineCache::open(const Device &D, const std::string &Dir) {
  Dev = D.handle();
  std::string Data;
  if (!Dir.empty()) {
    Path = (std::filesystem::path(Dir) / cacheFileName(D.properties())).string();
    std::error_code Ec;
    uintmax_t Size = std::filesystem::file_size(Path, Ec);
    if (!Ec && Size <= MaxCacheFileBytes) {
      std::ifstream In(Path, std::ios::binary);
      Data.assign(std::istreambuf_iterator<char>(In), {});
      if (!pipelineCacheMatches(Data, D.properties()))
        Data.clear();
    }
  }
  auto Info = vkStruct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  Info.initialDataSize = Data.size();
  Info.pInitialData = Data.empty() ? nullptr : Data.data();
  VkResult R = vkCreatePipelineCache(Dev, &Info, nullptr, &Cache);
  if (R != VK_SUCCESS && !Data.empty()) { // the driver refused the data
    Data.clear();
    Info.initialDataSize = 0;
    Info.pInitialData = nullptr;
    R = vkCreatePipelineCache(Dev, &Info, nullptr, &Cache);
  }
  if (R != VK_SUCCESS)
    return {R == VK_ERROR_OUT_OF_HOST_MEMORY || R == VK_ERROR_OUT_OF_DEVICE_MEMORY
                ? KILN_ERROR_OUT_OF_MEMORY
                : KILN_ERROR_UNSUPPORTED,
            concat("Vulkan: creating a pipeline cache failed (", resultName(R),
                   ")")};
  Loaded = Data.size();
  return Status::ok();
}

void PipelineCache::save() const {
  if (Path.empty() || !Cache)
    return;
  size_t Size = 0;
  if (vkGetPipelineCacheData(Dev, Cache, &Size, nullptr) != VK_SUCCESS || !Size)
    return;
  std::string Data(Size, '\0');
  if (vkGetPipelineCacheData(Dev, Cache, &Size, Data.data()) != VK_SUCCESS)
    return;
  Data.resize(Size);
  std::error_code Ec;
  std::filesystem::create_directories(std::filesystem::path(Path).parent_path(), Ec);
  static std::atomic<unsigned> Sequence{0}; // sessions saving at once
  std::string Temp = Path + ".tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(Sequence++);
  {
    std::ofstream Out(Temp, std::ios::binary | std::ios::trunc);
    Out.write(Data.data(), std::streamsize(Data.size()));
    if (!Out.flush()) {
      Out.close();
      std::filesystem::remove(Temp, Ec);
      return;
    }
  }
  std::filesystem::rename(Temp, Path, Ec);
  if (Ec)
    std::filesystem::remove(Temp, Ec);
}

PipelineCache::~PipelineCache() {
  if (Cache)
    vkDestroyPipelineCache(Dev, Cache, nullptr);
}

} // namespace kiln::rt::vk
