# The Metal target (included by runtime/CMakeLists.txt for Targets.def's
# metal line): the payload's verifier in every build.
target_sources(kiln_runtime_objects PRIVATE
  src/metal/MetalTarget.cpp
  src/metal/MetalPayloadVerifier.cpp)

# The Metal executor (src/metal, KILN_WITH_METAL): Objective-C++ on Apple
# platforms (iOS, macOS) where the Metal and Foundation frameworks are found;
# docs/targets.md says how an app builds it. The .mm files are compiled with
# ARC (-fobjc-arc): no manual retain/release anywhere in them. They reuse
# the GPU targets' host-layout conversion (gpu/GpuReadback.cpp) for
# keep_intermediates.
set(kiln_metal_libs)
if(APPLE)
  # CMake >= 3.16 has OBJCXX; the project needs 3.20. The top-level
  # CMakeLists.txt enables the language.
  find_library(KILN_METAL_FRAMEWORK Metal)
  find_library(KILN_FOUNDATION_FRAMEWORK Foundation)
endif()
if(APPLE AND KILN_METAL_FRAMEWORK AND KILN_FOUNDATION_FRAMEWORK)
  set(kiln_metal_sources
    src/metal/MetalExecutor.mm
    src/metal/MetalPipelines.mm)
  set_source_files_properties(${kiln_metal_sources} PROPERTIES
    COMPILE_OPTIONS "-fobjc-arc")
  target_sources(kiln_runtime_objects PRIVATE ${kiln_metal_sources})
  set_target_properties(kiln_runtime_objects PROPERTIES
    OBJCXX_VISIBILITY_PRESET hidden)
  set(kiln_metal_libs ${KILN_METAL_FRAMEWORK} ${KILN_FOUNDATION_FRAMEWORK})
  target_link_libraries(kiln_runtime_objects PRIVATE ${kiln_metal_libs})
  list(APPEND kiln_runtime_libs ${kiln_metal_libs})
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_WITH_METAL)
  message(STATUS "Metal executor: built")
else()
  message(STATUS "Metal executor: not built (Metal framework not found / "
                 "not an Apple platform)")
endif()

# The Metal kernel catalog the loader holds Metal files to
# (gpu/KernelCatalog.h, metal/MetalKernelIdentity.h): the SHA-256 of each
# catalog kernel's Metal record, written by the compiler's own translation
# (kiln-metal-kernel-identities, backends/metal) in a full build. A
# runtime-only build (an app's, the aarch64 cross build) takes the header
# a full build of the same kiln wrote (build/<preset>/runtime/
# metal-kernel-digests/MetalKernelDigests.h) as KILN_METAL_KERNEL_DIGESTS;
# without one it loads no Metal file. (In a sanitizer build the tool is
# instrumented too; its leaks, if any, must not fail the build.)
set(KILN_METAL_KERNEL_DIGESTS "" CACHE FILEPATH
    "MetalKernelDigests.h from a full build of the same kiln (runtime-only builds)")
set(kiln_metal_digests_dir ${CMAKE_CURRENT_BINARY_DIR}/metal-kernel-digests)
if(KILN_METAL_KERNEL_DIGESTS)
  configure_file(${KILN_METAL_KERNEL_DIGESTS}
                 ${kiln_metal_digests_dir}/MetalKernelDigests.h COPYONLY)
  target_include_directories(kiln_runtime_objects PRIVATE ${kiln_metal_digests_dir})
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_METAL_KERNEL_CATALOG)
elseif(NOT KILN_RUNTIME_ONLY AND KILN_GLSLC AND NOT CMAKE_CROSSCOMPILING)
  include(${PROJECT_SOURCE_DIR}/cmake/KilnShaders.cmake)
  include(${PROJECT_SOURCE_DIR}/cmake/KilnKernelCatalog.cmake)
  kiln_shader_entries(kiln_metal_catalog ${KILN_GPU_KERNEL_ENTRIES})
  set(kiln_metal_identities)
  foreach(stem ${kiln_metal_catalog_STEMS})
    list(APPEND kiln_metal_identities ${kiln_metal_digests_dir}/${stem}.identity)
  endforeach()
  add_custom_command(
    OUTPUT ${kiln_metal_identities}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${kiln_metal_digests_dir}
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
            $<TARGET_FILE:kiln-metal-kernel-identities> ${kiln_metal_digests_dir}
            ${kiln_metal_catalog_STEMS}
    DEPENDS kiln-metal-kernel-identities
    COMMENT "The Metal kernel catalog's records"
    VERBATIM)
  # The same header writer as the Vulkan catalog's (cmake/KilnShaders.cmake).
  add_custom_command(
    OUTPUT ${kiln_metal_digests_dir}/MetalKernelDigests.h
    COMMAND ${CMAKE_COMMAND} -DOUT=${kiln_metal_digests_dir}/MetalKernelDigests.h
            -DNS=kiln::rt::metal_catalog "-DMODULES=${kiln_metal_identities}"
            -P ${PROJECT_SOURCE_DIR}/cmake/KilnShaderDigestHeader.cmake
    DEPENDS ${kiln_metal_identities}
            ${PROJECT_SOURCE_DIR}/cmake/KilnShaderDigestHeader.cmake
    COMMENT "SHA-256 of the Metal kernel catalog"
    VERBATIM)
  add_custom_target(kiln_runtime_metal_digests
                    DEPENDS ${kiln_metal_digests_dir}/MetalKernelDigests.h)
  add_dependencies(kiln_runtime_objects kiln_runtime_metal_digests)
  target_include_directories(kiln_runtime_objects PRIVATE ${kiln_metal_digests_dir})
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_METAL_KERNEL_CATALOG)
endif()
