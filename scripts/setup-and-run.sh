#!/usr/bin/env bash
# The README's first command: install what is missing, build kiln (release),
# and compile an example model kept in examples/ to .kiln files (fp32 and
# int8), run them in the kiln runtime and compare with PyTorch's output.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j2

KILN=build/release/tools/kiln/kiln
MODEL=examples/models/mobilenetv2_small
OUT=build/example
mkdir -p "$OUT"
echo
echo "== kiln convert $MODEL.onnx -> $OUT/mobilenetv2_small.kiln (CPU target, -O2)"
"$KILN" convert "$MODEL.onnx" -o "$OUT/mobilenetv2_small.kiln"
echo
echo "== kiln convert --quantize int8 (calibrated on the example input)"
"$KILN" convert "$MODEL.onnx" --quantize int8 --calib "$MODEL.input.npz" \
  -o "$OUT/mobilenetv2_small.int8.kiln"
for v in mobilenetv2_small mobilenetv2_small.int8; do
  echo
  echo "== kiln run $OUT/$v.kiln (runtime, XNNPACK)"
  "$KILN" run "$OUT/$v.kiln" --input "$MODEL.input.npz" -o "$OUT/$v.out.npz"
done
echo
echo "== compare with PyTorch's output ($MODEL.ref.npz)"
/usr/bin/python3 - "$MODEL.ref.npz" "$OUT/mobilenetv2_small.out.npz" \
  "$OUT/mobilenetv2_small.int8.out.npz" <<'PY'
import sys, numpy as np
ref = np.load(sys.argv[1])["logits"].astype(np.float64)
fp32, int8 = (np.load(p)["logits"].astype(np.float64) for p in sys.argv[2:])
rel = float(np.max(np.abs(fp32 - ref) / np.maximum(np.abs(ref), 1e-12)))
sqnr = 10 * np.log10(np.sum(ref ** 2) / np.sum((int8 - ref) ** 2))
print(f"fp32 .kiln: max relative difference vs PyTorch {rel:.2e}")
print(f"int8 .kiln: SQNR vs PyTorch fp32 {sqnr:.1f} dB, top-1 "
      f"{'same' if int8.argmax() == ref.argmax() else 'DIFFERENT'}")
sys.exit(0 if rel < 1e-4 and sqnr > 30 else 1)
PY
