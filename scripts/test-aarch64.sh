#!/usr/bin/env bash
# scripts/test.sh aarch64: the runtime cross-compiled for 64-bit ARM Linux and
# tested under QEMU's user-mode emulation (qemu-aarch64).
#  - build/aarch64 (preset aarch64): the runtime, its unit tests, the
#    kiln-run-npy runner and the host NNAPI device (test/nnapi/host_device/,
#    libkiln_nnapi_host.so), built by Debian's g++-aarch64-linux-gnu
#    (cmake/toolchains/aarch64-linux-gnu.cmake, KILN_RUNTIME_ONLY) against
#    the arm64 sysroot of scripts/install-deps-aarch64.sh;
#  - the runtime's unit tests (unit-runtime) under QEMU, by ctest;
#  - end to end (test/cross/run_e2e.py): the example models and the
#    TorchScript fixtures, compiled on the host by build/release's kiln in
#    fp32, fp16, int8-dynamic and int8, run on arm64 (XNNPACK and the
#    reference kernels) against the host's reference interpreter; and the
#    example models for NNAPI too (nnapi: fp32; nnapi-int8: level 29, int8),
#    run by the runtime's NNAPI executor on that host NNAPI device;
#  - the Java API's JNI library for arm64 (android/): ctest's android-aar
#    checks kiln-android.aar (jni/arm64-v8a/libkiln_jni.so an aarch64 ELF
#    with an entry point for every native method), and kiln-jni-harness
#    loads that library under QEMU and runs MobileNetV2 through its JNI
#    entry points (no JVM runs under QEMU) against the host's `kiln run`.
# KILN_HOST_KILN=PATH uses that kiln instead of building build/release's.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/install-deps-aarch64.sh

# The host's compiler, which makes the models and their references.
if [ -n "${KILN_HOST_KILN:-}" ]; then
  Kiln=$(realpath "$KILN_HOST_KILN")
else
  [ -f build/release/build.ninja ] || cmake --preset release >/dev/null
  cmake --build --preset release -j2 --target kiln
  Kiln=$PWD/build/release/tools/kiln/kiln
fi

# The Metal kernel catalog of the host's full build, where there is one: the
# runtime-only build cannot translate kernels itself (docs/security.md).
MetalDigests=$PWD/build/release/runtime/metal-kernel-digests/MetalKernelDigests.h
if [ -f "$MetalDigests" ]; then
  cmake --preset aarch64 -DKILN_METAL_KERNEL_DIGESTS="$MetalDigests" >/dev/null
else
  cmake --preset aarch64 >/dev/null
fi
cmake --build --preset aarch64 -j2
# Both stages run even when the first fails, so one run shows every failure.
Status=0
ctest --preset aarch64 || Status=1
build/aarch64/test/cross/run_e2e.sh --kiln "$Kiln" --jobs 2 || Status=1
# arm64's XNNPACK kernels round differently from x86's: 1e-4, not 1e-5.
build/aarch64/android/tests/run_jni_harness.sh --kiln "$Kiln" --tolerance 1e-4 ||
  Status=1
exit $Status
