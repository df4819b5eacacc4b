"""Large models: peak resident memory of kiln convert, kiln run (every core,
the XNNPACK path) and ONNX Runtime's session creation + first run, as
ratios of the model's weight bytes, with wall times, in one run on one
machine (issue "Models past 2 GB"). Not part of ctest: it needs several GB
of disk and memory.

  measure.py KILN ORT_DIR WORK_DIR [--gb 2.7]

ORT_DIR holds node_modules/onnxruntime-node (bench/compare.sh installs it
with npm --ignore-scripts). Prints one table row per step, and the output
error of each engine against numpy's float64 reference."""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    """Runs cmd under /usr/bin/time: (wall s, peak RSS bytes, stdout)."""
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M"] + cmd,
                       capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    rss = int(re.search(r"MAXRSS (\d+)", p.stderr).group(1)) * 1024
    return wall, rss, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("ort_dir")
    ap.add_argument("work")
    ap.add_argument("--gb", type=float, default=2.7)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    gen = subprocess.run([sys.executable, os.path.join(HERE, "make_mlp.py"),
                          a.work, "--gb", str(a.gb)],
                         capture_output=True, text=True, check=True)
    weights = int(re.search(r"(\d+) weight bytes", gen.stdout).group(1))
    onnx = os.path.join(a.work, "mlp.onnx")
    kiln_file = os.path.join(a.work, "mlp.kiln")
    x = np.load(os.path.join(a.work, "mlp.input.npy"))
    ref = np.load(os.path.join(a.work, "mlp.ref.npy"))
    rows = []
    wall, rss, _ = timed([a.kiln, "convert", onnx, "-o", kiln_file])
    rows.append(("kiln convert", wall, rss, None))
    out = os.path.join(a.work, "kiln-out.npz")
    wall, rss, _ = timed([a.kiln, "run", kiln_file, "--input",
                          "x=" + os.path.join(a.work, "mlp.input.npy"),
                          "-o", out])
    y = np.load(out)["y"]
    rows.append(("kiln run (every core, XNNPACK)", wall, rss,
                 float(np.abs(y - ref).max() / np.abs(ref).max())))
    raw_in = os.path.join(a.work, "x.bin")
    raw_out = os.path.join(a.work, "ort-out.bin")
    x.astype("<f4").tofile(raw_in)
    wall, rss, text = timed(["node", os.path.join(HERE, "ort_first_run.js"),
                             a.ort_dir, onnx, "x", "x".join(map(str, x.shape)),
                             raw_in, raw_out])
    y = np.fromfile(raw_out, dtype="<f4").reshape(ref.shape)
    rows.append(("ONNX Runtime: create + first run", wall, rss,
                 float(np.abs(y - ref).max() / np.abs(ref).max())))
    print("weights: %d bytes (%.2f GB)" % (weights, weights / 1e9))
    print("| | wall | peak RSS | RSS / weights | output vs float64 |")
    print("|---|---|---|---|---|")
    for name, wall, rss, err in rows:
        print("| %s | %.1f s | %.2f GB | %.2f | %s |" %
              (name, wall, rss / 1e9, rss / weights,
               "" if err is None else "%.1e" % err))


if __name__ == "__main__":
    main()
