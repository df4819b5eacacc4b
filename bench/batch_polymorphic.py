"""Batch-polymorphic against static .kiln files, at batch 1 and 1 thread.

    /usr/bin/python3 bench/batch_polymorphic.py KILN WORKDIR [--runs N] [--rounds R]

torchvision's MobileNetV2 and ResNet-18 (seeded weights, BatchNorm
statistics re-estimated; nothing is downloaded) are exported to ONNX with a
dynamic batch (`dynamic_axes`), as users export them, and converted twice:
without `--input-shape` (one file for any batch) and with
`--input-shape 1x3x224x224` (a static file, as before schema 1.9). Both run
at batch 1 with `kiln bench --threads 1 --runs N`, alternating, R rounds;
the figure is the median of the rounds' medians and the ratio
polymorphic / static. Also reported: one run of 8 images through the
polymorphic file against 8 runs of the static one (`kiln run`, wall time).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from int8_mobile_zoo import cpu, export, median_latency, run  # noqa: E402

MODELS = ["mobilenet_v2", "resnet18"]


def wall(*args):
    start = time.perf_counter()
    run(*args)
    return (time.perf_counter() - start) * 1e3


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kiln")
    p.add_argument("workdir")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    print(f"CPU: {cpu()}")
    print(f"{'model':<14} {'static ms':>10} {'polymorphic ms':>15} {'ratio':>6}   "
          f"{'8 runs of 1':>12} {'1 run of 8':>11}")
    for name in MODELS:
        onnx = os.path.join(a.workdir, name + ".onnx")
        if not os.path.exists(onnx):
            export(name, onnx, dynamic_batch=True)
        static = os.path.join(a.workdir, name + ".static.kiln")
        poly = os.path.join(a.workdir, name + ".any.kiln")
        run(a.kiln, "convert", onnx, "--input-shape", "1x3x224x224", "-o", static)
        run(a.kiln, "convert", onnx, "-o", poly)
        s, q = [], []
        for _ in range(a.rounds):
            s.append(median_latency(a.kiln, static, a.runs))
            q.append(median_latency(a.kiln, poly, a.runs))
        ms, mq = statistics.median(s), statistics.median(q)
        images = os.path.join(a.workdir, "images8.npy")
        np.save(images, np.random.default_rng(0).standard_normal((8, 3, 224, 224)).astype(np.float32))
        each = wall(a.kiln, "run", static, "--threads", "1", "--input", images)
        once = wall(a.kiln, "run", poly, "--threads", "1", "--input", images)
        print(f"{name:<14} {ms:>10.2f} {mq:>15.2f} {mq / ms:>6.3f}   "
              f"{each:>10.0f}ms {once:>9.0f}ms")


if __name__ == "__main__":
    main()
