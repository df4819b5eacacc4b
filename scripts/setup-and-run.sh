#!/usr/bin/env bash
# The README's first command: install what is missing, build kiln (release),
# and run it on an example model kept in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j2

KILN=build/release/tools/kiln/kiln
echo
echo "== kiln opt examples/tiny_cnn.kir --stats"
"$KILN" opt examples/tiny_cnn.kir --stats
