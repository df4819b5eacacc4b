# The Vulkan target (included by runtime/CMakeLists.txt for Targets.def's
# vulkan line).
target_sources(kiln_runtime_objects PRIVATE
  src/vulkan/VulkanTarget.cpp
  src/vulkan/VulkanPayloadVerifier.cpp
  src/vulkan/SpirvReflection.cpp)

# The loader verifies Vulkan files in every build: SPIRV-Tools validates
# their SPIR-V modules and SPIRV-Cross reflects them where the build has
# them (scripts/install-deps.sh: spirv-tools, libspirv-cross-c-shared-dev;
# Debian ships SPIRV-Tools as a position-independent static library). A
# build without them (the aarch64 cross build) keeps the structural checks.
find_package(SPIRV-Tools CONFIG QUIET)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(KILN_SPIRV_CROSS QUIET IMPORTED_TARGET spirv-cross-c-shared)
endif()
set(kiln_spirv_libs)
if(TARGET SPIRV-Tools-shared)
  list(APPEND kiln_spirv_libs SPIRV-Tools-shared)
elseif(TARGET SPIRV-Tools-static)
  list(APPEND kiln_spirv_libs SPIRV-Tools-static)
endif()
if(kiln_spirv_libs)
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_WITH_SPIRV_TOOLS)
endif()
if(KILN_SPIRV_CROSS_FOUND)
  list(APPEND kiln_spirv_libs PkgConfig::KILN_SPIRV_CROSS)
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_WITH_SPIRV_CROSS)
endif()
target_link_libraries(kiln_runtime_objects PRIVATE ${kiln_spirv_libs})
list(APPEND kiln_runtime_libs ${kiln_spirv_libs})
message(STATUS "Vulkan files verified with SPIRV-Tools / SPIRV-Cross: "
               "${kiln_spirv_libs}")

# The kernel catalog the loader holds Vulkan files to (gpu/KernelCatalog.h):
# the SHA-256 of every kernel module, compiled here by the same glslc, from
# the same GLSL and flags, as the compiler's (cmake/KilnKernelCatalog.cmake).
# A device build whose glslc differs from the converter's (the NDK's) takes
# the header of a full build of the same kiln instead
# (build/<preset>/runtime/shader-digests/VulkanKernelDigests.h) as
# KILN_VULKAN_KERNEL_DIGESTS. A build with neither loads no Vulkan file.
set(KILN_VULKAN_KERNEL_DIGESTS "" CACHE FILEPATH
    "VulkanKernelDigests.h from a full build of the same kiln (device builds)")
if(KILN_VULKAN_KERNEL_DIGESTS)
  set(kiln_vulkan_digests_dir ${CMAKE_CURRENT_BINARY_DIR}/shader-digests)
  configure_file(${KILN_VULKAN_KERNEL_DIGESTS}
                 ${kiln_vulkan_digests_dir}/VulkanKernelDigests.h COPYONLY)
  target_include_directories(kiln_runtime_objects PRIVATE ${kiln_vulkan_digests_dir})
  target_compile_definitions(kiln_runtime_objects PRIVATE
                             KILN_VULKAN_KERNEL_CATALOG)
elseif(KILN_GLSLC)
  if(KILN_RUNTIME_ONLY)
    message(STATUS "Vulkan kernel catalog: from ${KILN_GLSLC}; files load "
                   "only if the converter's glslc made the same bytes (else "
                   "set KILN_VULKAN_KERNEL_DIGESTS)")
  endif()
  include(${PROJECT_SOURCE_DIR}/cmake/KilnShaders.cmake)
  include(${PROJECT_SOURCE_DIR}/cmake/KilnKernelCatalog.cmake)
  kiln_shader_digests(kiln_runtime_objects kiln::rt::vulkan_catalog
                      VulkanKernelDigests.h ${KILN_GPU_KERNEL_ENTRIES})
  target_compile_definitions(kiln_runtime_objects PRIVATE
                             KILN_VULKAN_KERNEL_CATALOG)
endif()

# The Vulkan executor (src/vulkan), where libvulkan-dev is installed
# (KILN_WITH_VULKAN, cmake/KilnDependencies.cmake).
if(KILN_WITH_VULKAN)
  target_sources(kiln_runtime_objects PRIVATE
    src/vulkan/VulkanDevice.cpp
    src/vulkan/VulkanBuffers.cpp
    src/vulkan/VulkanExecutor.cpp
    src/vulkan/VulkanPipelines.cpp
    src/vulkan/PipelineCache.cpp)
  target_link_libraries(kiln_runtime_objects PRIVATE Vulkan::Vulkan)
  list(APPEND kiln_runtime_libs Vulkan::Vulkan)
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_WITH_VULKAN)
endif()
