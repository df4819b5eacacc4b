#!/usr/bin/env bash
# The README's first command: install what is missing, build kiln (release),
# and run it on an example model kept in examples/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j2

KILN=build/release/tools/kiln/kiln
MODEL=examples/models/mobilenetv2_small
echo
echo "== kiln run $MODEL.onnx (reference interpreter)"
"$KILN" run "$MODEL.onnx" --input "$MODEL.input.npz" -o build/mobilenetv2_small.out.npz
echo
echo "== compare with PyTorch's output ($MODEL.ref.npz)"
/usr/bin/python3 - "$MODEL.ref.npz" build/mobilenetv2_small.out.npz <<'PY'
import sys, numpy as np
ref, got = (np.load(p)["logits"] for p in sys.argv[1:])
rel = float(np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-12)))
print(f"max relative difference vs PyTorch: {rel:.2e}")
sys.exit(0 if rel < 1e-4 else 1)
PY
