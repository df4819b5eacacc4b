// The loader's checks of a Vulkan file's payload (schema 1.5,
// fb::VulkanPayload), run in every build so that tools read Vulkan files on
// CPU-only builds too: every SPIR-V module is well formed (SPIRV-Tools'
// validator, Vulkan 1.1) and reflected (SPIRV-Cross) for its storage
// buffers, specialization constants and push-constant block; every dispatch,
// buffer, upload and tensor place agrees with the modules and stays inside
// its buffers; every fp16-arithmetic twin (fp16_math_variant) can stand in
// for its shader. Builds without SPIRV-Tools or SPIRV-Cross (cross builds) keep
// the structural checks (magic number, length) and skip those two.
#pragma once

#include "Status.h"
#include "gpu/GpuBuffersVerifier.h"
#include "loader/LoadedModel.h"
#include "vulkan/SpirvReflection.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt {

struct TensorDesc;

/// What the loader learned of a Vulkan file's payload, for the executor
/// (LoadedModel::Payload): each SPIR-V module's reflection, by
/// VulkanPayload.shaders index.
struct VulkanPayloadInfo : PayloadInfo {
  std::vector<VulkanModuleInfo> Modules;
};

/// Model's modules (a loaded Vulkan file always has its payload info).
inline const std::vector<VulkanModuleInfo> &vulkanModules(const LoadedModel &Model) {
  return static_cast<const VulkanPayloadInfo &>(*Model.Payload).Modules;
}

/// Checks M's VulkanPayload against M's tensors (already described in
/// Tensors) and fills Modules, one per shader.
Status verifyVulkanPayload(const fb::Model &M,
                           const std::vector<TensorDesc> &Tensors,
                           std::vector<VulkanModuleInfo> &Modules);

} // namespace kiln::rt
