#!/usr/bin/env bash
# The README's second command (and what CI runs): install what is missing,
# build, and run the whole test suite with ctest.
#   scripts/test.sh            release build (build/release)
#   scripts/test.sh asan       ASan + UBSan build (build/asan)
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET="${1:-release}"

scripts/install-deps.sh
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j2
ctest --preset "$PRESET"
