// The SPIR-V of every kiln Vulkan kernel, compiled from kernels/*.comp by
// glslc when kiln is built (cmake/KilnShaders.cmake), so converting needs no
// GLSL toolchain and no GPU.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <set>
#include <string>

namespace kiln::vulkan {

/// The words of kernel Name ("conv2d_c4", ...; "<name>_f16": fp16 storage,
/// fp32 arithmetic; "<name>_f16math": fp16 storage and arithmetic;
/// "gather_f32_f16", "gather_f16_f32": the conversions of graph inputs and
/// outputs; "fully_connected_f16_f32", "resize_f16_f32": fp16 storage with
/// an f32 output, for a graph output); empty if there is none.
llvm::ArrayRef<uint32_t> kernelSpirv(llvm::StringRef Name);

/// The fp16-arithmetic twin of an fp16-storage kernel ("depthwise_c4_f16"
/// -> "depthwise_c4_f16math", "resize_f16_f32" -> "resize_f16math_f32");
/// empty when Name has none (the reductions,
/// the gathers, fp32 kernels).
std::string fp16MathVariant(llvm::StringRef Name);

/// The specialization constant ids a module declares (OpDecorate SpecId);
/// glslc's optimizer drops the constants a kernel never reads.
std::set<uint32_t> specConstantIds(llvm::ArrayRef<uint32_t> Spirv);

} // namespace kiln::vulkan
