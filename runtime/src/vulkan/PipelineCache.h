// The Vulkan executor's pipeline cache across processes
// (VulkanOptions::PipelineCacheDir): the VkPipelineCache starts from
// <dir>/kiln-<vendorID>-<deviceID>-<driverVersion>-<pipelineCacheUUID>.vkpc
// (ids in hex) when that file's Vulkan header names this device, and is
// written back atomically (a temporary file renamed over it) once the
// session's pipelines exist. A missing, foreign or unwritable file only
// costs the compile time it would have saved: it is never an error.
#pragma once

#include "vulkan/VulkanDevice.h"

#include <string>

namespace kiln::rt::vk {

class PipelineCache {
public:
  PipelineCache() = default;
  ~PipelineCache();
  PipelineCache(const PipelineCache &) = delete;
  PipelineCache &operator=(const PipelineCache &) = delete;

  /// Creates the VkPipelineCache, from Dir's file when it is valid for D
  /// (Dir empty: an in-memory cache only).
  Status open(const Device &D, const std::string &Dir);
  /// Writes the cache's data back to the file (nothing when Dir was empty).
  void save() const;

  VkPipelineCache handle() const { return Cache; }
  /// The file, or "" without a folder.
  const std::string &path() const { return Path; }
  /// Bytes of the file the cache started from (0: none, or not valid here).
  size_t loadedBytes() const { return Loaded; }

private:
  VkDevice Dev = VK_NULL_HANDLE;
  VkPipelineCache Cache = VK_NULL_HANDLE;
  std::string Path;
  size_t Loaded = 0;
};

/// Whether Data starts with a Vulkan pipeline cache header (version one)
/// that names Props' vendor, device and pipelineCacheUUID.
bool pipelineCacheMatches(const std::string &Data,
                          const VkPhysicalDeviceProperties &Props);

} // namespace kiln::rt::vk
