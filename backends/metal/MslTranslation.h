// One Vulkan kernel (SPIR-V) translated to Metal Shading Language by
// SPIRV-Cross (Debian's C API), with what SPIRV-Cross's reflection says the
// MSL expects: the [[buffer(n)]] of every storage buffer and of the
// push-constant block, the function constants, the threadgroup size and
// the threadgroup memory. The Metal target records exactly this in the
// file, so that the executor needs neither a translator nor a table of its
// own.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::metal {

/// MSL 2.1 (iOS 12, macOS 10.14): what every kiln kernel needs (none uses
/// a later feature); SPIRV-Cross's version encoding.
constexpr uint32_t MslVersion = 20100;

/// The type of a function constant, as the schema's MetalConstantType.
enum class ConstantType : uint8_t { UInt = 0, Int = 1, Float = 2, Bool = 3 };

struct FunctionConstant {
  uint32_t Id = 0;
  ConstantType Type = ConstantType::UInt;
};

struct MslKernel {
  std::string Source;
  /// The kernel function's name in Source ("main0": SPIRV-Cross renames
  /// "main", which MSL reserves).
  std::string EntryPoint;
  /// [[buffer(n)]] of Vulkan binding i.
  std::vector<uint32_t> BufferIndices;
  /// [[buffer(n)]] of the push-constant block (-1: none) and its bytes.
  int32_t PushConstantIndex = -1;
  uint32_t PushConstantBytes = 0;
  /// [[buffer(n)]] of the bindings' byte sizes (uint per [[buffer(m)]],
  /// indexed by m) that the kernel's length checks read; -1: it reads none.
  int32_t BufferSizeIndex = -1;
  /// Sorted by id.
  std::vector<FunctionConstant> FunctionConstants;
  /// The SPIR-V module's workgroup size, and the constant id that sets
  /// each dimension (-1: the literal).
  std::array<uint32_t, 3> ThreadgroupSize{{1, 1, 1}};
  std::array<int32_t, 3> ThreadgroupSizeConstants{{-1, -1, -1}};
  uint32_t ThreadgroupMemoryBytes = 0;
};

/// Translates kernel Name's SPIR-V to MSL. Storage buffer binding i is
/// [[buffer(i)]], the push-constant block the next index and the
/// buffer-size buffer the one after, assigned through
/// spvc_compiler_msl_add_resource_binding and SPIRV-Cross's options (never
/// declaration order). Fails, naming the kernel, where SPIRV-Cross fails or
/// the MSL would need what the Metal executor does not provide (textures,
/// a descriptor set other than 0).
llvm::Expected<MslKernel> translateToMsl(llvm::StringRef Name,
                                         llvm::ArrayRef<uint32_t> Spirv);

} // namespace kiln::metal
