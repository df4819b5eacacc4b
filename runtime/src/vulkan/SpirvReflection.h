// One SPIR-V compute module of a Vulkan file, checked and reflected: the
// magic number and length always; where the build has them, SPIRV-Tools'
// validator (Vulkan 1.1 rules) and SPIRV-Cross's reflection of the module's
// descriptors, specialization constants, push constants and workgroup size
// (KILN_WITH_SPIRV_TOOLS, KILN_WITH_SPIRV_CROSS; vulkan/Sources.cmake).
#pragma once

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::rt {

/// What the loader learned of one SPIR-V module by reflection.
struct VulkanModuleInfo {
  /// False when this build has no SPIRV-Cross: the fields below are unknown.
  bool Reflected = false;
  /// Storage buffers at set 0, bindings 0..NumBindings-1.
  uint32_t NumBindings = 0;
  /// The module's specialization constant ids, sorted.
  std::vector<uint32_t> SpecIds;
  /// Bytes of its push-constant block (0: none).
  uint32_t PushBytes = 0;
  /// The workgroup size when no specialization constant overrides it.
  uint32_t LocalSize[3] = {1, 1, 1};
  /// The specialization constant that sets each workgroup dimension
  /// (local_size_x_id ...), or -1 where the size is a literal.
  int64_t LocalSizeSpecId[3] = {-1, -1, -1};
  /// The module's words, copied from the file when it was verified: what
  /// was checked is what the driver gets (shared by shaders that name the
  /// same bytes).
  std::shared_ptr<const std::vector<uint32_t>> Words;
};

/// Checks the module of Count words and describes it in Out. Errors are
/// KILN_ERROR_INVALID_MODEL and say what is wrong (no shader index: the
/// caller adds it).
Status inspectSpirv(const uint32_t *Words, size_t Count, VulkanModuleInfo &Out);

} // namespace kiln::rt
