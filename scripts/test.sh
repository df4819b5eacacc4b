#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run the whole test suite with ctest.
#   scripts/test.sh            release build (build/release); then the
#                              runtime tests and cpu-e2e again on the kernels
#                              of an AVX2-only CPU, the runtime for aarch64
#                              under QEMU (as `scripts/test.sh aarch64`), the
#                              mutant corpus through an ASan + UBSan loader,
#                              and the unit tests of threaded code under
#                              ThreadSanitizer
#   scripts/test.sh asan       ASan + UBSan build (build/asan)
#   scripts/test.sh tsan       ThreadSanitizer build (build/tsan)
#   scripts/test.sh debug      debug build (the verifier after every pass)
#   scripts/test.sh aarch64    the runtime cross-built for aarch64, its tests
#                              and the examples' .kiln files under QEMU
# Every stage runs even when one before it failed, so one run shows every
# failure; the script then exits 1 and names the stages that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${1:-release}"

if [ "$PRESET" = aarch64 ]; then
  exec scripts/test-aarch64.sh
fi

Failed=()
# stage NAME COMMAND...: runs one stage, timed, and remembers a failure.
stage() {
  local Name=$1 Start=$SECONDS
  shift
  echo "== $Name"
  if "$@"; then
    echo "== $Name: ok ($((SECONDS - Start)) s)"
  else
    echo "== $Name: FAILED ($((SECONDS - Start)) s)"
    Failed+=("$Name")
  fi
}

scripts/install-deps.sh
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j2
stage "ctest ($PRESET)" ctest --preset "$PRESET"

if [ "$PRESET" = release ]; then
  # The kernels of CPUs this one is not, on x86: oneDNN capped to AVX2
  # (ONEDNN_MAX_CPU_ISA; kiln's own AVX-512 kernel follows the cap), so a
  # developer on an AVX-512 machine breaks the path of an AVX2-only CPU only
  # where CI sees it; and, where this CPU has AVX-512 VNNI, capped to
  # AVX-512 without it (oneDNN then halves int8 weights, and the session
  # must leave those convolutions to XNNPACK). On an AVX2-only CPU the first
  # is this CPU's own path again.
  Caps=(AVX2)
  if grep -qw avx512_vnni /proc/cpuinfo 2>/dev/null; then
    Caps+=(AVX512_CORE)
  fi
  for Cap in "${Caps[@]}"; do
    stage "runtime tests and cpu-e2e, ONEDNN_MAX_CPU_ISA=$Cap" \
      env ONEDNN_MAX_CPU_ISA="$Cap" ctest --preset release \
        -R '^(unit-runtime|cpu-e2e)$'
  done

  # The runtime cross-built for aarch64, its unit tests and the examples in
  # four modes under QEMU, against this build's compiler and interpreter
  # (about 3 minutes from scratch, 20 seconds once built).
  stage "aarch64 runtime under QEMU" \
    env KILN_HOST_KILN=build/release/tools/kiln/kiln scripts/test-aarch64.sh

  # cpu-mutants wrote 1200 mutants of .kiln files, and fuzz-regressions keeps
  # the inputs that once crashed the loader. Both are replayed through the
  # loader and runtime built with ASan and UBSan (only that driver, the host
  # NNAPI device, unit-nnapi and unit-metal are built, a few minutes): a
  # memory error or undefined behaviour that the release build survives
  # fails CI. The NNAPI files' sessions run through the ASan-built executor
  # and host device, and a folder of valid NNAPI files (converted here) must
  # all run. The Metal mutants (cpu-mutants' Metal seeds) are verified by
  # the ASan-built loader; their sessions are refused (no Metal executor).
  # The data parsers (.npy and .npz, images, the TorchScript zip check,
  # .kcal calibration statistics) replay their fuzz regressions and seed
  # corpora the same way
  # (kiln-data-input-replay, test/fuzz). ONNX's are replayed by ctest in the
  # release build and under TSan: an ASan build of the frontend, the passes
  # and the interpreter would add 12 minutes, and the ONNX fuzz campaign
  # runs them all under ASan + UBSan (scripts/fuzz.sh).
  # The sanitizer builds take the release build's Metal kernel catalog
  # (the same sources and compilers), rather than build the compiler's
  # passes and GPU lowering under ASan only to translate the kernels again.
  MetalDigests=$PWD/build/release/runtime/metal-kernel-digests/MetalKernelDigests.h
  asanReplay() {
    cmake --preset asan -DKILN_METAL_KERNEL_DIGESTS="$MetalDigests" >/dev/null ||
      return 1
    cmake --build --preset asan -j2 --target kiln-loader-replay \
      kiln-data-input-replay kiln_nnapi_host unit-nnapi unit-metal || return 1
    ctest --preset asan -R '^unit-(nnapi|metal)$' || return 1
    local Files=build/release/test/nnapi/files Kiln=build/release/tools/kiln/kiln
    local Models=examples/models
    rm -rf "$Files" && mkdir -p "$Files" || return 1
    "$Kiln" convert $Models/mobilenetv2_small.onnx --target nnapi \
      -o "$Files/mobilenetv2_small.kiln" >/dev/null || return 1
    "$Kiln" convert $Models/resnet_small.onnx --target nnapi \
      -o "$Files/resnet_small.kiln" >/dev/null || return 1
    local Level Model
    for Level in 29 30; do
      for Model in mobilenetv2_small resnet_small; do
        "$Kiln" convert $Models/$Model.onnx --target nnapi --quantize int8 \
          --calib $Models/$Model.input.npz --nnapi-feature-level $Level \
          -o "$Files/$Model.int8.l$Level.kiln" >/dev/null || return 1
      done
    done
    export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1
    # The Vulkan mutants are loaded and verified under ASan, but their
    # sessions see no Vulkan driver: Mesa's lavapipe leaks small blocks that
    # LeakSanitizer reports from unloaded modules. cpu-mutants ran those
    # sessions on lavapipe in the release build already.
    export VK_ICD_FILENAMES=/nonexistent/kiln-asan-no-driver.json
    export VK_DRIVER_FILES=$VK_ICD_FILENAMES
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
    export KILN_NNAPI_LIBRARY=$PWD/build/asan/test/nnapi/libkiln_nnapi_host.so
    local Corpus Report
    for Corpus in build/release/test/cpu/mutants test/fuzz/regressions; do
      Report=$(build/asan/test/fuzz/kiln-loader-replay "$Corpus")
      echo "asan replay of $Corpus: $Report"
      [[ "$Report" == *" 0 crashes" ]] || return 1
    done
    cmake -DREPLAY=build/asan/test/fuzz/kiln-data-input-replay -DSOURCE="$PWD" \
      "-DKINDS=npy;image;torchscript-zip;kcal" -P test/fuzz/ReplayInputs.cmake ||
      return 1
    # The whole malformed .kcal corpus, the 1 MB amplification probe
    # (20,000 values at 65,536 bins) included, which the checked-in seeds
    # leave out: written from a file the release build calibrates.
    local Kcal=build/release/test/kcal-corpus
    rm -rf "$Kcal" && mkdir -p "$Kcal" || return 1
    "$Kiln" calibrate $Models/mobilenetv2_small.onnx \
      --calib $Models/mobilenetv2_small.input.npz --calib-bins 256 \
      -o "$Kcal/valid.kcal" >/dev/null || return 1
    /usr/bin/python3 test/kcal-malformed/make_corpus.py "$Kcal/valid.kcal" \
      "$Kcal/corpus" || return 1
    Report=$(build/asan/test/fuzz/kiln-data-input-replay kcal "$Kcal/corpus")
    echo "asan replay of the .kcal corpus: $Report"
    [[ "$Report" == *" 0 crashes" ]] || return 1
    # Every valid NNAPI file loads and runs: "N files: 0 rejected ... N ran".
    local Count
    Count=$(find "$Files" -name '*.kiln' | wc -l)
    Report=$(build/asan/test/fuzz/kiln-loader-replay "$Files")
    echo "asan replay of $Files: $Report"
    [[ "$Report" == "$Count files: 0 rejected when loaded, 0 rejected when"*", 0 failed cleanly while running, $Count ran; 0 crashes" ]] ||
      return 1
  }
  stage "ASan replay of the mutants, fuzz regressions and seed corpora" asanReplay

  # The unit tests of kiln's threaded code, again under ThreadSanitizer
  # (build/tsan): the runtime's multi-threaded sessions (unit-runtime), the
  # interpreter's thread pool (its unit tests), the .kiln writer's producer
  # thread (unit-support) and sharded calibration over in-memory samples
  # (unit-quant), with the session's parallel weight packing
  # (runtime/test/ParallelPackingTest.cpp) and calibration streamed from a
  # source (runOverSource, test/unit/quant/CalibrationDataTest.cpp). Two
  # threaded paths have no unit test yet and run only in the release
  # stage, through the kiln tool: kiln build's job scheduler (test/lit/build;
  # its library links every backend) and the converter's source-hash future
  # (every convert). Unit tests for those belong here. The kiln tool, lit,
  # cpu-e2e (single-threaded sessions) and the fuzz replays (single-
  # threaded loaders and importers) run once, in the release stage:
  # building the tool under TSan is a hundred more objects, and with its
  # lit tests they kept CI past an hour. oneDNN and libgomp are not
  # instrumented, so their races are suppressed (test/tsan.supp). GCC 12's
  # TSan cannot start under the high-entropy address randomization of some
  # newer kernels ("unexpected memory mapping"), so the tests run without
  # randomization where the system allows that.
  tsanSuite() {
    cmake --preset tsan -DKILN_METAL_KERNEL_DIGESTS="$MetalDigests" >/dev/null ||
      return 1
    cmake --build --preset tsan -j2 --target unit-support unit-interpreter \
      unit-interpreter-nn unit-quant unit-runtime || return 1
    local NoAslr=()
    if setarch "$(uname -m)" -R true 2>/dev/null; then
      NoAslr=(setarch "$(uname -m)" -R)
    fi
    "${NoAslr[@]}" ctest --preset tsan -R \
      '^unit-(support|interpreter|interpreter-nn|quant|runtime)$'
  }
  stage "ctest (tsan)" tsanSuite
fi

if [ ${#Failed[@]} -gt 0 ]; then
  echo "scripts/test.sh $PRESET: ${#Failed[@]} stage(s) failed:"
  printf '  %s\n' "${Failed[@]}"
  exit 1
fi
echo "scripts/test.sh $PRESET: every stage passed"
