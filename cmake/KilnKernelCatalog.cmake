# The kernel catalog: every GPU kernel kiln's Vulkan and Metal targets emit,
# as entries of kiln_embed_shaders (cmake/KilnShaders.cmake). The compiler
# embeds their SPIR-V (backends/gpu) and the runtime carries their SHA-256
# (runtime/src/gpu/KernelCatalog.h): a GPU file loads only where each of its
# modules is one of these (docs/security.md). Included by both; sets
# KILN_GPU_KERNEL_ENTRIES and KILN_GPU_F16MATH_KERNELS.
set(_kiln_kernels ${PROJECT_SOURCE_DIR}/backends/gpu/kernels)
# Every kernel twice: fp32, and with fp16 storage (--quantize fp16; the
# arithmetic stays fp32, so it needs only storageBuffer16BitAccess); the
# gathers that convert the graph's f32 inputs and outputs also mixed
# (below).
set(kiln_vulkan_kernels conv2d_c4 conv2d_grouped_c4 depthwise_c4 elementwise
    fully_connected gather global_pool_c4 pool2d_c4 resize softmax layer_norm
    matmul pixels_to_tensor index_gather index_to_float)
list(APPEND kiln_vulkan_kernels concat attention lstm_cell gru_cell)
# The kernels with a third variant, "<k>_f16math": fp16 storage and fp16
# arithmetic (MSCALAR / MVEC4, kernels/common.glsl; needs shaderFloat16).
# A .kiln file carries it beside "<k>_f16" and the runtime picks one per
# device. Adding a kernel to this list is all it takes: the compiler's
# catalog (backends/gpu/KernelCatalog.cpp) reads it from
# VulkanF16MathKernels.def. The
# reductions (global_pool_c4, softmax) and the gathers have none: they stay
# fp32 arithmetic.
set(KILN_GPU_F16MATH_KERNELS conv2d_c4 conv2d_grouped_c4 depthwise_c4 elementwise
    fully_connected pool2d_c4 resize)
set(KILN_GPU_KERNEL_ENTRIES)
foreach(k ${kiln_vulkan_kernels})
  list(APPEND KILN_GPU_KERNEL_ENTRIES ${_kiln_kernels}/${k}.comp
       VARIANT ${k}_f16 ${_kiln_kernels}/${k}.comp KILN_FP16)
endforeach()
# With fp16, the kernels that write graph outputs also with an f32
# destination (KILN_DST_F32), so no conversion dispatch follows them.
# Their fp16-arithmetic twins are "<k>_f16math_f32".
foreach(k fully_connected resize)
  list(APPEND KILN_GPU_KERNEL_ENTRIES
       VARIANT ${k}_f16_f32 ${_kiln_kernels}/${k}.comp KILN_FP16,KILN_DST_F32
       VARIANT ${k}_f16math_f32 ${_kiln_kernels}/${k}.comp
               KILN_FP16,KILN_FP16_MATH,KILN_DST_F32)
endforeach()
foreach(k ${KILN_GPU_F16MATH_KERNELS})
  list(APPEND KILN_GPU_KERNEL_ENTRIES
       VARIANT ${k}_f16math ${_kiln_kernels}/${k}.comp KILN_FP16,KILN_FP16_MATH)
endforeach()
# The gathers that convert the graph's f32 inputs and outputs to and from
# fp16 storage.
list(APPEND KILN_GPU_KERNEL_ENTRIES
     VARIANT gather_f32_f16 ${_kiln_kernels}/gather.comp KILN_FP16,KILN_SRC_F32
     VARIANT gather_f16_f32 ${_kiln_kernels}/gather.comp KILN_FP16,KILN_DST_F32)
