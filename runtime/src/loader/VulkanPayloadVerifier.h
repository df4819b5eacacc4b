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
#include "loader/GpuBuffersVerifier.h"
#include "loader/SpirvReflection.h"

#include "schema/kiln_generated.h"

#include <vector>

namespace kiln::rt {

struct TensorDesc;

/// Checks M's VulkanPayload against M's tensors (already described in
/// Tensors) and fills Modules, one per shader.
Status verifyVulkanPayload(const fb::Model &M,
                           const std::vector<TensorDesc> &Tensors,
                           std::vector<VulkanModuleInfo> &Modules);

} // namespace kiln::rt
