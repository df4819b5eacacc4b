"""kiln convert --target onnx, checked in ONNX Runtime (npm onnxruntime-node):
every example model, float (-O2) and int8 QDQ, is exported, checked with
onnx.checker (full_check), run in ORT on the example input, and compared
with kiln's own output for the same graph (the reference interpreter on the
original model, or on the int8 QDQ .kir from `kiln opt --quantize int8` with
the same calibration data). Fails (exit 1) when an output differs by more
than 1e-4 (max absolute error relative to max |kiln|).

  /usr/bin/python3 bench/onnx_export_vs_ort.py build/release/tools/kiln/kiln \
      [--ort /work/ort]

Needs node and onnxruntime-node; prints SKIP and exits 0 without them.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["mobilenetv2_small", "resnet_small"]

ap = argparse.ArgumentParser()
ap.add_argument("kiln")
ap.add_argument("--ort", default="/work/ort")
ap.add_argument("--tolerance", type=float, default=1e-4)
args = ap.parse_args()
if not shutil.which("node") or not os.path.isdir(
        os.path.join(args.ort, "node_modules", "onnxruntime-node")):
    print("SKIP: node or onnxruntime-node (under --ort) is missing")
    sys.exit(0)


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


failures = 0
with tempfile.TemporaryDirectory() as tmp:
    calib = os.path.join(tmp, "calib.npy")
    np.save(calib, np.random.default_rng(0).uniform(
        -1, 1, (8, 1, 3, 64, 64)).astype(np.float32))
    for name in MODELS:
        model = os.path.join(ROOT, "examples", "models", name + ".onnx")
        inputs = os.path.join(ROOT, "examples", "models", name + ".input.npz")
        (input_name, x), = np.load(inputs).items()
        x.astype(np.float32).tofile(os.path.join(tmp, "in.bin"))
        for mode in ["float", "int8"]:
            exported = os.path.join(tmp, f"{name}.{mode}.onnx")
            reference = model
            quant = [] if mode == "float" else ["--quantize", "int8", "--calib", calib]
            run(args.kiln, "convert", model, "--target", "onnx", "-o", exported, *quant)
            if mode == "int8":
                reference = os.path.join(tmp, f"{name}.int8.kir")
                run(args.kiln, "opt", model, *quant, "-o", reference)
            onnx.checker.check_model(onnx.load(exported), full_check=True)
            out_npz = os.path.join(tmp, "kiln.npz")
            run(args.kiln, "run", reference, "--input", inputs, "-o", out_npz)
            kiln_out = next(iter(np.load(out_npz).values())).astype(np.float32)
            out_bin = os.path.join(tmp, "ort.bin")
            run("node", os.path.join(HERE, "ort_run.js"), args.ort, exported,
                input_name, "x".join(map(str, x.shape)),
                os.path.join(tmp, "in.bin"), out_bin)
            ort_out = np.fromfile(out_bin, dtype=np.float32).reshape(kiln_out.shape)
            err = float(np.max(np.abs(ort_out - kiln_out)) / max(np.max(np.abs(kiln_out)), 1e-30))
            ok = err <= args.tolerance
            failures += not ok
            ops = sorted({n.op_type for n in onnx.load(exported).graph.node})
            print(f"{name:20s} {mode:5s} max|ort - kiln| / max|kiln| = {err:.2e} "
                  f"{'ok' if ok else 'FAIL'}  ({len(onnx.load(exported).graph.node)} nodes: {', '.join(ops)})")
sys.exit(1 if failures else 0)
