#include "backends/vulkan/KernelCatalog.h"

#include "VulkanKernels.h"

namespace kiln::vulkan {

llvm::ArrayRef<uint32_t> kernelSpirv(llvm::StringRef Name) {
#define KERNEL(K)                                                              \
  if (Name == #K)                                                              \
    return llvm::ArrayRef<uint32_t>(kernels::K);                               \
  if (Name == #K "_f16")                                                       \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16);
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
#define F32_OUT(K)                                                             \
  if (Name == #K "_f16_f32")                                                   \
    return llvm::ArrayRef<uint32_t>(kernels::K##_f16_f32);
  F32_OUT(fully_connected)
  F32_OUT(resize)
  if (Name == "gather_f32_f16")
    return llvm::ArrayRef<uint32_t>(kernels::gather_f32_f16);
  if (Name == "gather_f16_f32")
    return llvm::ArrayRef<uint32_t>(kernels::gather_f16_f32);
#undef F32_OUT
#undef KERNEL
  return {};
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
