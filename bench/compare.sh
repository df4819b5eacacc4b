#!/bin/bash
# Benchmarks kiln against ONNX Runtime and PyTorch Mobile on this machine, in
# one run (see compare.py for what is measured). Not part of ctest.
#   bench/compare.sh [BUILD_DIR] [WORKDIR] [compare.py options...]
# ONNX Runtime comes from npm (onnxruntime-node, installed once with
# --ignore-scripts into bench/.ort, which git ignores); PyTorch is Debian's
# python3-torch.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../build}
WORK=${2:-/tmp/kiln-bench}
shift $(( $# < 2 ? $# : 2 ))
ORT_DIR=${KILN_ORT_DIR:-$HERE/.ort}
if [ ! -d "$ORT_DIR/node_modules/onnxruntime-node" ]; then
  mkdir -p "$ORT_DIR"
  (cd "$ORT_DIR" && npm install onnxruntime-node --ignore-scripts --no-audit --no-fund)
fi
exec /usr/bin/python3 "$HERE/compare.py" "$BUILD/tools/kiln/kiln" "$ORT_DIR" "$WORK" "$@"
