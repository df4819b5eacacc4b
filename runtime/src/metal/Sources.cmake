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
