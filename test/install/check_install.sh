#!/bin/bash
# Installs the kiln runtime into a temporary prefix, builds the C example
# (examples/c-api) against it twice -- with find_package(kiln) and with
# pkg-config -- runs both on a converted model, and checks their output
# against `kiln run` on the same input.
#   check_install.sh BUILD_DIR SOURCE_DIR KILN PYTHON [PRELOAD]
# PRELOAD: in a sanitizer build, the sanitizer runtime the example (built
# without it) must load before the instrumented libkiln.so.
set -euo pipefail
BUILD=$1 SRC=$2 KILN=$3 PY=$4 PRELOAD=${5:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cmake --install "$BUILD" --prefix "$TMP/prefix" > "$TMP/install.log"
for f in include/kiln/kiln.h lib/libkiln.so lib/cmake/kiln/kilnConfig.cmake \
         lib/cmake/kiln/kilnTargets.cmake lib/pkgconfig/kiln.pc; do
  test -e "$TMP/prefix/$f" || { echo "missing $f"; exit 1; }
done
# Only the C API is exported from libkiln.so.
if nm -D --defined-only "$TMP/prefix/lib/libkiln.so" | awk '{print $3}' | grep -v '^kiln_' | grep -q .; then
  echo "libkiln.so exports symbols other than kiln_*:"
  nm -D --defined-only "$TMP/prefix/lib/libkiln.so" | awk '{print $3}' | grep -v '^kiln_' | head
  exit 1
fi

cmake -S "$SRC/examples/c-api" -B "$TMP/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$TMP/prefix" > "$TMP/configure.log"
cmake --build "$TMP/cmake-build" > "$TMP/build.log"
PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" \
  cc "$SRC/examples/c-api/run_model.c" $(PKG_CONFIG_PATH="$TMP/prefix/lib/pkgconfig" pkg-config --cflags --libs kiln) \
  -o "$TMP/run_model_pc"

"$KILN" convert "$SRC/examples/models/mobilenetv2_small.onnx" -o "$TMP/m.kiln" > /dev/null
LD_PRELOAD="$PRELOAD" "$TMP/cmake-build/run_model" "$TMP/m.kiln" > "$TMP/cmake.out"
LD_PRELOAD="$PRELOAD" LD_LIBRARY_PATH="$TMP/prefix/lib" "$TMP/run_model_pc" "$TMP/m.kiln" > "$TMP/pc.out"
cmp "$TMP/cmake.out" "$TMP/pc.out"

# The same ramp through `kiln run`.
"$PY" - "$TMP" <<'PYEOF'
import sys, numpy as np
n = 1 * 3 * 64 * 64
x = ((np.arange(n) % 17) / 16.0 - 0.5).astype(np.float32).reshape(1, 3, 64, 64)
np.save(sys.argv[1] + "/ramp.npy", x)
PYEOF
"$KILN" run "$TMP/m.kiln" --input "$TMP/ramp.npy" -o "$TMP/ref.npz" > /dev/null
"$PY" - "$TMP" <<'PYEOF'
import sys, numpy as np
tmp = sys.argv[1]
ref = np.load(tmp + "/ref.npz")["logits"].ravel()
line = [l for l in open(tmp + "/cmake.out") if l.strip().startswith("values:")][0]
got = np.array([float(v) for v in line.split()[1:]])
assert len(got) == 10, got
assert np.allclose(got, ref[:10], rtol=1e-5, atol=1e-6), (got, ref[:10])
print("installed runtime: find_package and pkg-config builds match kiln run:",
      " ".join("%.6f" % v for v in got[:3]), "...")
PYEOF
