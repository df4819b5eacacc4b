#include "backends/gpu/KernelCatalog.h"

#include "VulkanKernels.h"

namespace kiln::vulkan {

llvm::ArrayRef<uint32_t> kernelSpirv(llvm::StringRef Name) {
#define KERNEL(K)                                                              \
  if (Name == #K)                                                              \
    return llvm::ArrayRef<uint32_t>(kernels::K);                               \
  if (Name == #K "_f16")                                                       \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16);
  KERNEL(attention)
  KERNEL(lstm_cell)
  KERNEL(gru_cell)
  KERNEL(concat)
  KERNEL(conv2d_c4)
  KERNEL(conv2d_grouped_c4)
  KERNEL(depthwise_c4)
  KERNEL(elementwise)
  KERNEL(fully_connected)
  KERNEL(gather)
  KERNEL(global_pool_c4)
  KERNEL(pool2d_c4)
  KERNEL(resize)
  KERNEL(softmax)
  KERNEL(layer_norm)
  KERNEL(matmul)
  KERNEL(pixels_to_tensor)
  KERNEL(index_gather)
  KERNEL(index_to_float)
#define F32_OUT(K)                                                             \
  if (Name == #K "_f16_f32")                                                   \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16_f32);                     \
  if (Name == #K "_f16math_f32")                                               \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16math_f32);
  F32_OUT(fully_connected)
  F32_OUT(resize)
#define KILN_F16MATH(K)                                                        \
  if (Name == #K "_f16math")                                                   \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16math);
#include "VulkanF16MathKernels.def"
#undef KILN_F16MATH
  if (Name == "gather_f32_f16")
    return llvm::ArrayRef<uint32_t>(kernels::gather_f32_f16);
  if (Name == "gather_f16_f32")
    return llvm::ArrayRef<uint32_t>(kernels::gather_f16_f32);
#undef F32_OUT
#undef KERNEL
  return {};
}

std::string fp16MathVariant(llvm::StringRef Name) {
  std::string Twin;
  if (Name.endswith("_f16"))
    Twin = Name.str() + "math";
  else if (Name.endswith("_f16_f32")) // an f32 output: "<k>_f16math_f32"
    Twin = Name.drop_back(4).str() + "math_f32";
  else
    return {};
  return kernelSpirv(Twin).empty() ? std::string() : Twin;
}

std::set<uint32_t> specConstantIds(llvm::ArrayRef<uint32_t> Spirv) {
  constexpr uint32_t OpDecorate = 71, SpecId = 1, HeaderWords = 5;
  std::set<uint32_t> Ids;
  for (size_t I = HeaderWords; I < Spirv.size();) {
    uint32_t Words = Spirv[I] >> 16, Op = Spirv[I] & 0xffff;
    if (Words == 0)
      break;
    if (Op == OpDecorate && Words == 4 && I + 3 < Spirv.size() &&
        Spirv[I + 2] == SpecId)
      Ids.insert(Spirv[I + 3]);
    I += Words;
  }
  return Ids;
}

} // namespace kiln::vulkan
