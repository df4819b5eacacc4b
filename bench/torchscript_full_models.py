#!/usr/bin/env python3
"""Full-size torchvision models through kiln's TorchScript frontend.

    /usr/bin/python3 bench/torchscript_full_models.py KILN WORKDIR [--models a,b]

Generates MobileNetV2, ResNet-50, EfficientNet-B0 and DeepLabV3-ResNet50
(520x520) with test/torchscript-models/make_fixtures.py --full (random
weights, ~20-160 MB each, never committed), then for the traced and the
scripted file: times the import (`kiln opt -O0 --json`, best of 3), runs the
model with `kiln run`, and compares with PyTorch's fp32 output and with a
float64 PyTorch run of the same module, the exact answer both fp32 results
approximate. Reports the elementwise relative error and the error relative to
the largest output (norm_rel).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"mobilenet_v2": 224, "resnet50": 224, "efficientnet_b0": 224,
         "deeplabv3_resnet50": 520}


def errors(got, ref):
    d = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    return d.max(), d.max() / np.abs(ref).max(), (d / np.maximum(np.abs(ref), 1e-30)).max()


def first(npz):
    return npz[npz.files[0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("workdir")
    ap.add_argument("--models", default=",".join(SIZES))
    args = ap.parse_args()
    names = args.models.split(",")
    os.makedirs(args.workdir, exist_ok=True)
    missing = [n for n in names
               if not os.path.exists(os.path.join(args.workdir, n + ".scripted.pt"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "..", "test", "torchscript-models",
                                                     "make_fixtures.py"), "--full",
                        args.workdir, "--only", ",".join(missing)], check=True)
    torch.set_num_threads(2)
    print("| model | variant | file MB | import s | vs PyTorch fp32: max_abs, norm_rel, elementwise rel "
          "| kiln vs fp64 norm_rel | PyTorch fp32 vs fp64 norm_rel |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        s = SIZES[n]
        base = os.path.join(args.workdir, n)
        x = np.load(base + ".input.npz")["x"]
        ref32 = first(np.load(base + ".ref.npz"))
        with torch.no_grad():
            m64 = torch.jit.load(base + ".traced.pt").eval().double()
            y = m64(torch.from_numpy(x).double())
            ref64 = (y["out"] if isinstance(y, dict) else y).numpy()
        for v in ("traced", "scripted"):
            pt = "%s.%s.pt" % (base, v)
            best = None
            for _ in range(3):
                t0 = time.perf_counter()
                subprocess.run([args.kiln, "opt", "-O0", pt, "--input-shape", "1x3x%dx%d" % (s, s),
                                "--json"], check=True, stdout=subprocess.DEVNULL)
                best = min(best or 1e9, time.perf_counter() - t0)
            out = "%s.%s.out.npz" % (base, v)
            subprocess.run([args.kiln, "run", pt, "--input-shape", "x=1x3x%dx%d" % (s, s),
                            "--input", base + ".input.npz", "-o", out], check=True,
                           stdout=subprocess.DEVNULL)
            got = first(np.load(out))
            a, nr, er = errors(got, ref32)
            print("| %s | %s | %.0f | %.2f | %.3g, %.3g, %.3g | %.3g | %.3g |" % (
                n, v, os.path.getsize(pt) / 1e6, best, a, nr, er,
                errors(got, ref64)[1], errors(ref32, ref64)[1]))


if __name__ == "__main__":
    main()
