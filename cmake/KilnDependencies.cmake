# Every dependency is a Debian package, found with find_package.
# scripts/install-deps.sh installs them.
find_package(LLVM 14 CONFIG REQUIRED)
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
llvm_map_components_to_libnames(KILN_LLVM_LIBS support)
add_library(kiln_llvm INTERFACE)
target_include_directories(kiln_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
separate_arguments(KILN_LLVM_DEFS NATIVE_COMMAND ${LLVM_DEFINITIONS})
target_compile_definitions(kiln_llvm INTERFACE ${KILN_LLVM_DEFS})
target_link_libraries(kiln_llvm INTERFACE ${KILN_LLVM_LIBS})

find_package(Protobuf REQUIRED)
find_package(ONNX CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(FlatBuffers CONFIG REQUIRED)
find_package(Catch2 2 CONFIG REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBZIP REQUIRED IMPORTED_TARGET libzip)
# stb_image (libstb-dev) decodes JPEG/PNG calibration images.
pkg_check_modules(STB REQUIRED IMPORTED_TARGET stb)

# Tools from llvm-14-tools used by the lit tests.
find_program(KILN_LIT lit.py PATHS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
             /usr/lib/llvm-14/build/utils/lit NO_DEFAULT_PATH REQUIRED)
find_program(KILN_FILECHECK FileCheck PATHS ${LLVM_TOOLS_BINARY_DIR}
             NO_DEFAULT_PATH REQUIRED)
# Debian's python3 (with python3-onnx/numpy), not a pyenv or venv one.
set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for lit and generators")
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# TorchScript frontend (libtorch-dev). Optional: without it kiln still builds,
# and `.pt` inputs get a message saying how to enable it.
find_package(Torch CONFIG QUIET)
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

# oneDNN (libdnnl-dev) for the runtime's dense f32 convolutions on x86, where
# its JIT kernels beat XNNPACK's (runtime/src/OnednnKernels.cpp). Optional:
# without it (or off x86, or a compiler without OpenMP, which Debian's oneDNN
# threads with) XNNPACK runs them.
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
find_package(OpenMP QUIET COMPONENTS CXX)
set(KILN_ONEDNN_FOUND OFF)
if(DNNL_INCLUDE_DIR AND DNNL_LIBRARY AND OpenMP_CXX_FOUND AND
   CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(KILN_ONEDNN_FOUND ON)
endif()
option(KILN_WITH_ONEDNN "Run dense f32 convolutions on oneDNN (x86, libdnnl-dev)" ${KILN_ONEDNN_FOUND})
if(KILN_WITH_ONEDNN)
  if(NOT KILN_ONEDNN_FOUND)
    message(FATAL_ERROR "KILN_WITH_ONEDNN=ON but oneDNN (libdnnl-dev), OpenMP or an x86 target is missing")
  endif()
  add_library(kiln_onednn INTERFACE)
  target_include_directories(kiln_onednn SYSTEM INTERFACE ${DNNL_INCLUDE_DIR})
  # Only the OpenMP library (omp_set_num_threads): -fopenmp on kiln's own
  # code would switch on Eigen's OpenMP threading in the interpreter.
  target_link_libraries(kiln_onednn INTERFACE ${DNNL_LIBRARY} ${OpenMP_CXX_LIBRARIES})
endif()
message(STATUS "oneDNN convolutions in the runtime: ${KILN_WITH_ONEDNN}")
