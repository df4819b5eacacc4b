#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run the whole test suite with ctest.
#   scripts/test.sh            release build (build/release); then the mutant
#                              corpus again through an ASan + UBSan loader,
#                              and the whole suite under ThreadSanitizer
#   scripts/test.sh asan       ASan + UBSan build (build/asan)
#   scripts/test.sh tsan       ThreadSanitizer build (build/tsan)
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${1:-release}"

scripts/install-deps.sh
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j2
ctest --preset "$PRESET"

if [ "$PRESET" = release ]; then
  # cpu-mutants wrote 1200 mutants of .kiln files, and fuzz-regressions keeps
  # the inputs that once crashed the loader. Both are replayed through the
  # loader and runtime built with ASan and UBSan (only that driver is built,
  # about a minute): a memory error or undefined behaviour that the release
  # build survives fails CI.
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j2 --target kiln-loader-replay
  export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1
  for Corpus in build/release/test/cpu/mutants test/fuzz/regressions; do
    Report=$(build/asan/test/fuzz/kiln-loader-replay "$Corpus")
    echo "asan replay of $Corpus: $Report"
    [[ "$Report" == *" 0 crashes" ]]
  done

  # The whole suite again under ThreadSanitizer (build/tsan, about 9
  # minutes): the writer's producer thread, the interpreter's thread pool and
  # the runtime's multi-threaded sessions. oneDNN and libgomp are not
  # instrumented, so their races are suppressed (test/tsan.supp). GCC 12's
  # TSan cannot start under the high-entropy address randomization of some
  # newer kernels ("unexpected memory mapping"), so the tests run without
  # randomization where the system allows that.
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j2
  NoAslr=()
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    NoAslr=(setarch "$(uname -m)" -R)
  fi
  "${NoAslr[@]}" ctest --preset tsan
fi
