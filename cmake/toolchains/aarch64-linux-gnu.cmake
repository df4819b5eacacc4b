# Cross-compiling for 64-bit ARM Linux with Debian's GNU cross toolchain
# (g++-aarch64-linux-gnu: compilers, glibc and libstdc++ for arm64 under
# /usr/aarch64-linux-gnu).
#
#   cmake --preset aarch64      (build/aarch64: the runtime and its tests)
#   cmake -B DIR -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DKILN_RUNTIME_ONLY=ON [-DBUILD_TESTING=OFF] [-DKILN_AARCH64_SYSROOT=DIR]
#
# Libraries (XNNPACK, pthreadpool, ...) come from KILN_AARCH64_SYSROOT: a
# folder laid out like an arm64 Debian system (DIR/usr/include,
# DIR/usr/lib/aarch64-linux-gnu, ...), such as the one
# scripts/install-deps-aarch64.sh unpacks from Debian's arm64 .debs
# (build/aarch64-sysroot, the default) or a copy of a device's root
# filesystem. glibc and libstdc++ are the cross toolchain's own.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# GCC notes (-Wpsabi) where C++17 code passes an aggregate the way GCC 10.1
# changed it to on arm64: that matters only when linking with code built by
# an older GCC, which nothing here is.
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

# The toolchain file is read again for each try_compile, where only the
# environment carries the choice over.
if(NOT DEFINED KILN_AARCH64_SYSROOT)
  if(DEFINED ENV{KILN_AARCH64_SYSROOT})
    set(KILN_AARCH64_SYSROOT "$ENV{KILN_AARCH64_SYSROOT}")
  else()
    get_filename_component(KILN_AARCH64_SYSROOT
                           "${CMAKE_CURRENT_LIST_DIR}/../../build/aarch64-sysroot"
                           ABSOLUTE)
  endif()
endif()
set(KILN_AARCH64_SYSROOT "${KILN_AARCH64_SYSROOT}" CACHE PATH
    "arm64 libraries and headers (a Debian-style root: usr/lib/aarch64-linux-gnu, usr/include)")
set(ENV{KILN_AARCH64_SYSROOT} "${KILN_AARCH64_SYSROOT}")

# Headers, libraries and CMake packages from the sysroot (and the cross
# toolchain's own folder); programs (flatc, python) from the host.
set(CMAKE_FIND_ROOT_PATH "${KILN_AARCH64_SYSROOT}" /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the sysroot's .pc files and prefixes their paths with it.
set(ENV{PKG_CONFIG_LIBDIR}
    "${KILN_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${KILN_AARCH64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${KILN_AARCH64_SYSROOT}")
unset(ENV{PKG_CONFIG_PATH})

# The sysroot's shared libraries need others of theirs (libXNNPACK.so needs
# libcpuinfo.so.0, libzip.so libssl.so.3, ...), which the linker finds
# through -rpath-link. Running the programs needs them too: under QEMU,
# LD_LIBRARY_PATH (qemu-aarch64 -E) names these same folders.
foreach(dir usr/lib/aarch64-linux-gnu lib/aarch64-linux-gnu)
  string(APPEND KILN_AARCH64_RPATH_LINK " -Wl,-rpath-link,${KILN_AARCH64_SYSROOT}/${dir}")
endforeach()
set(CMAKE_EXE_LINKER_FLAGS_INIT "${KILN_AARCH64_RPATH_LINK}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${KILN_AARCH64_RPATH_LINK}")

# ctest and the test scripts run the programs under QEMU's user-mode
# emulation (qemu-user), with the cross toolchain's glibc and the sysroot's
# libraries, on a host that is not arm64 itself.
if(NOT CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  find_program(KILN_QEMU_AARCH64 qemu-aarch64)
  if(KILN_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${KILN_QEMU_AARCH64} -L /usr/aarch64-linux-gnu
        -E "LD_LIBRARY_PATH=${KILN_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu:${KILN_AARCH64_SYSROOT}/lib/aarch64-linux-gnu")
  endif()
endif()
