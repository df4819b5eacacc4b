# Every dependency is a Debian package, found with find_package.
# scripts/install-deps.sh installs them.
#
# KILN_RUNTIME_ONLY (CMakeLists.txt) finds only what the runtime needs and,
# with its tests (KILN_WITH_SUPPORT_LIBS), what they link: Support, IR and
# the .kiln writer, which the tests write their models with.
if(KILN_WITH_SUPPORT_LIBS)
  if(CMAKE_CROSSCOMPILING)
    # Debian's LLVMConfig.cmake checks that every LLVM tool and library it
    # lists is present, which an arm64 sysroot holding llvm-14-dev alone is
    # not (scripts/install-deps-aarch64.sh): take Support (and Demangle,
    # which it uses) directly.
    find_path(LLVM_INCLUDE_DIRS llvm/Support/Error.h
              PATHS /usr/lib/llvm-14/include NO_DEFAULT_PATH REQUIRED)
    find_library(KILN_LLVM_SUPPORT LLVMSupport PATHS /usr/lib/llvm-14/lib
                 NO_DEFAULT_PATH REQUIRED)
    find_library(KILN_LLVM_DEMANGLE LLVMDemangle PATHS /usr/lib/llvm-14/lib
                 NO_DEFAULT_PATH REQUIRED)
    find_library(KILN_ZLIB z REQUIRED)
    find_library(KILN_TINFO tinfo REQUIRED)
    find_package(Threads REQUIRED)
    message(STATUS "LLVM Support: ${KILN_LLVM_SUPPORT}")
    set(KILN_LLVM_LIBS ${KILN_LLVM_SUPPORT} ${KILN_LLVM_DEMANGLE} ${KILN_ZLIB}
        ${KILN_TINFO} Threads::Threads ${CMAKE_DL_LIBS} rt m)
    set(LLVM_DEFINITIONS "-D_GNU_SOURCE -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS")
  else()
    find_package(LLVM 14 CONFIG REQUIRED)
    message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
    llvm_map_components_to_libnames(KILN_LLVM_LIBS support)
  endif()
  add_library(kiln_llvm INTERFACE)
  target_include_directories(kiln_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
  separate_arguments(KILN_LLVM_DEFS NATIVE_COMMAND ${LLVM_DEFINITIONS})
  target_compile_definitions(kiln_llvm INTERFACE ${KILN_LLVM_DEFS})
  target_link_libraries(kiln_llvm INTERFACE ${KILN_LLVM_LIBS})
endif()

if(NOT KILN_RUNTIME_ONLY)
  find_package(Protobuf REQUIRED)
  find_package(ONNX CONFIG REQUIRED)
  find_package(CLI11 CONFIG REQUIRED)
  find_package(tomlplusplus CONFIG REQUIRED) # kiln build's manifest
endif()
if(KILN_WITH_SUPPORT_LIBS)
  find_package(spdlog CONFIG REQUIRED)
endif()
find_package(FlatBuffers CONFIG REQUIRED)
# A cross build generates the schema header with the host's flatc
# (flatbuffers-compiler), whose version must match the headers'.
if(NOT TARGET flatbuffers::flatc)
  find_program(KILN_FLATC flatc REQUIRED)
  add_executable(flatbuffers::flatc IMPORTED)
  set_target_properties(flatbuffers::flatc PROPERTIES IMPORTED_LOCATION ${KILN_FLATC})
endif()
find_package(Threads REQUIRED)
if(KILN_WITH_SUPPORT_LIBS)
  find_package(Catch2 2 CONFIG REQUIRED)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
  # stb_image (libstb-dev) decodes JPEG/PNG calibration images.
  pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)
endif()

if(NOT KILN_RUNTIME_ONLY)
  # Tools from llvm-14-tools used by the lit tests.
  find_program(KILN_LIT lit.py PATHS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
               /usr/lib/llvm-14/build/utils/lit NO_DEFAULT_PATH REQUIRED)
  find_program(KILN_FILECHECK FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR}
               NO_DEFAULT_PATH REQUIRED)
  # Debian's python3 (with python3-onnx/numpy), not a pyenv or venv one.
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for lit and generators")
  find_package(Python3 REQUIRED COMPONENTS Interpreter)

  # TorchScript frontend (libtorch-dev). Optional: without it kiln still
  # builds, and `.pt` inputs get a message saying how to enable it.
  find_package(Torch CONFIG QUIET)
endif()
option(KILN_WITH_TORCHSCRIPT "Build the TorchScript frontend (needs libtorch-dev)" ${Torch_FOUND})
if(KILN_WITH_TORCHSCRIPT AND NOT Torch_FOUND)
  message(FATAL_ERROR "KILN_WITH_TORCHSCRIPT=ON but libtorch was not found; install libtorch-dev")
endif()
message(STATUS "TorchScript frontend: ${KILN_WITH_TORCHSCRIPT}")

# CPU kernels for the runtime: XNNPACK + pthreadpool have no CMake or
# pkg-config files in Debian, so find the header and library directly.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h REQUIRED)
find_library(XNNPACK_LIBRARY XNNPACK REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
add_library(kiln_xnnpack INTERFACE)
target_include_directories(kiln_xnnpack SYSTEM INTERFACE ${XNNPACK_INCLUDE_DIR})
target_link_libraries(kiln_xnnpack INTERFACE ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY} Threads::Threads)

# zlib (zlib1g-dev): the PNG reader bounds what a file's image data
# inflates to before stb_image decodes it (lib/Support/PngInflateBound.cpp).
find_package(ZLIB REQUIRED)

# xxHash (libxxhash-dev), header-only (XXH_INLINE_ALL): the runtime checks
# weight segments against their recorded hashes (verify_weight_hashes)
# without linking another library.
find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
add_library(kiln_xxhash INTERFACE)
target_include_directories(kiln_xxhash SYSTEM INTERFACE ${XXHASH_INCLUDE_DIR})

# mbedTLS's crypto library (libmbedtls-dev), static: the runtime's SHA-256
# of GPU kernels against its catalog (runtime/src/gpu/KernelCatalog.h).
# Apache-2.0 and made for embedded systems; Debian's archive is built
# position-independent, so it links into libkiln.so, and only its SHA-256
# object is pulled in (its symbols stay hidden behind the C API).
find_path(MBEDTLS_INCLUDE_DIR mbedtls/sha256.h REQUIRED)
find_library(MBEDCRYPTO_STATIC_LIBRARY NAMES libmbedcrypto.a REQUIRED)
add_library(kiln_sha256 INTERFACE)
target_include_directories(kiln_sha256 SYSTEM INTERFACE ${MBEDTLS_INCLUDE_DIR})
target_link_libraries(kiln_sha256 INTERFACE ${MBEDCRYPTO_STATIC_LIBRARY})

# oneDNN (libdnnl-dev) for the runtime's convolutions on x86, where its JIT
# kernels beat XNNPACK's (runtime/src/OnednnKernels.cpp). Optional: without
# it, or off x86, XNNPACK runs them. Debian builds it on OpenMP (libgomp),
# whose thread count the runtime sets, so the runtime links that same libgomp
# (found through the compiler; clang's own libomp would be another runtime
# with settings of its own).
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.so
                OUTPUT_VARIABLE KILN_GOMP_LIBRARY OUTPUT_STRIP_TRAILING_WHITESPACE)
set(KILN_ONEDNN_FOUND OFF)
if(DNNL_INCLUDE_DIR AND DNNL_LIBRARY AND IS_ABSOLUTE "${KILN_GOMP_LIBRARY}" AND
   EXISTS "${KILN_GOMP_LIBRARY}" AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  file(STRINGS ${DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_config.h KILN_DNNL_OMP
       REGEX "define DNNL_CPU_THREADING_RUNTIME DNNL_RUNTIME_OMP")
  if(KILN_DNNL_OMP)
    set(KILN_ONEDNN_FOUND ON)
  endif()
endif()
option(KILN_WITH_ONEDNN "Run convolutions on oneDNN (x86, libdnnl-dev)" ${KILN_ONEDNN_FOUND})
if(KILN_WITH_ONEDNN)
  if(NOT KILN_ONEDNN_FOUND)
    message(FATAL_ERROR "KILN_WITH_ONEDNN=ON but oneDNN (libdnnl-dev) built on OpenMP, libgomp or an x86 target is missing")
  endif()
  add_library(kiln_onednn INTERFACE)
  target_include_directories(kiln_onednn SYSTEM INTERFACE ${DNNL_INCLUDE_DIR})
  target_link_libraries(kiln_onednn INTERFACE ${DNNL_LIBRARY} ${KILN_GOMP_LIBRARY})
endif()
message(STATUS "oneDNN convolutions in the runtime: ${KILN_WITH_ONEDNN}")

# Vulkan (libvulkan-dev) for the Vulkan executor, and glslc (shaderc) to
# compile its GLSL compute kernels to SPIR-V at build time
# (cmake/KilnShaders.cmake). Tests run on Mesa's lavapipe with the Khronos
# validation layer (mesa-vulkan-drivers, vulkan-validationlayers).
find_package(Vulkan QUIET)
find_program(KILN_GLSLC glslc)
set(KILN_VULKAN_FOUND OFF)
if(Vulkan_FOUND AND KILN_GLSLC)
  set(KILN_VULKAN_FOUND ON)
endif()
option(KILN_WITH_VULKAN "Build the Vulkan executor (libvulkan-dev, glslc)" ${KILN_VULKAN_FOUND})
if(KILN_WITH_VULKAN AND NOT KILN_VULKAN_FOUND)
  message(FATAL_ERROR "KILN_WITH_VULKAN=ON but libvulkan-dev or glslc is missing (scripts/install-deps.sh)")
endif()
message(STATUS "Vulkan executor in the runtime: ${KILN_WITH_VULKAN}")

# The NNAPI executor dlopens libneuralnetworks.so when a session is created
# (runtime/src/nnapi/NnapiLibrary.h) and links nothing but libdl, so every
# build has it, the aarch64 cross build included.
option(KILN_WITH_NNAPI "Build the NNAPI executor (dlopens libneuralnetworks.so)" ON)
message(STATUS "NNAPI executor in the runtime: ${KILN_WITH_NNAPI}")

# The Python package (python/, docs/python.md): pybind11 (pybind11-dev, which
# brings python3-dev). Its extension module is a shared object that links the
# compiler's static libraries, so with it every object is built
# position-independent; -fno-semantic-interposition keeps GCC inlining and
# cloning across global functions as it does in an executable (the kernels
# themselves are XNNPACK's and oneDNN's shared libraries). The sanitizer and
# fuzzing presets leave it out.
if(NOT KILN_RUNTIME_ONLY)
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
endif()
option(KILN_PYTHON "Build the Python package (pybind11-dev)" ${pybind11_FOUND})
if(KILN_PYTHON)
  if(NOT pybind11_FOUND)
    message(FATAL_ERROR "KILN_PYTHON=ON but pybind11 was not found; install pybind11-dev (scripts/install-deps.sh)")
  endif()
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  add_compile_options(-fno-semantic-interposition)
endif()
message(STATUS "Python package: ${KILN_PYTHON}")
