#!/usr/bin/env python3
"""Calibration throughput: `kiln calibrate` vs PyTorch FX static quantization
(prepare_fx with the default qnnpack qconfig, then the calibration forward
passes), on the same images, on this machine, in one run. Not part of ctest.

    /usr/bin/python3 bench/calibration_vs_fx.py [BUILD_DIR] [--images N]

Writes N seeded 64x64 PNGs to a temporary folder; both sides decode them and
normalize the same way. Models: the example MobileNetV2 and ResNet (same
architecture in PyTorch, from examples/make_examples.py). Reports images per
second for 1 thread and for all cores, and kiln's ratio over FX.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
import make_examples  # noqa: E402
from torch.ao.quantization import get_default_qconfig_mapping  # noqa: E402
from torch.ao.quantization.quantize_fx import prepare_fx  # noqa: E402

MODELS = {"mobilenetv2_small": make_examples.MobileNetV2Small,
          "resnet_small": make_examples.ResNetSmall}
MEAN, STD = 0.5, 0.25


def write_images(folder, count):
    rng = np.random.default_rng(0)
    for i in range(count):
        img = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
        Image.fromarray(img).save(os.path.join(folder, f"{i:05d}.png"))


def fx_rate(cls, folder, threads):
    torch.set_num_threads(threads)
    torch.backends.quantized.engine = "qnnpack"
    files = sorted(os.listdir(folder))
    model = cls().eval()
    example = torch.zeros(1, 3, 64, 64)
    start = time.perf_counter()
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"), (example,))
    with torch.no_grad():
        for f in files:
            x = np.asarray(Image.open(os.path.join(folder, f)).convert("RGB"),
                           np.float32) / 255.0
            x = torch.from_numpy(((x - MEAN) / STD).transpose(2, 0, 1)[None].copy())
            prepared(x)
    return len(files) / (time.perf_counter() - start)


def kiln_rate(kiln, model, folder, threads, count):
    start = time.perf_counter()
    subprocess.run([kiln, "calibrate", model, "--calib", folder, "--calib-mean",
                    str(MEAN), "--calib-std", str(STD), "--threads", str(threads),
                    "-o", os.path.join(folder, "..", "stats.kcal")], check=True)
    return count / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--images", type=int, default=256)
    a = ap.parse_args()
    kiln = os.path.join(a.build, "tools", "kiln", "kiln")
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "images")
        os.mkdir(folder)
        write_images(folder, a.images)
        print(f"{a.images} images of 64x64, {cores} cores")
        for name, cls in MODELS.items():
            onnx = os.path.join(HERE, "..", "examples", "models", name + ".onnx")
            for threads in sorted({1, cores}):
                k = kiln_rate(kiln, onnx, folder, threads, a.images)
                f = fx_rate(cls, folder, threads)
                print(f"{name:18s} threads {threads}: kiln {k:7.1f} img/s, "
                      f"PyTorch FX {f:7.1f} img/s, ratio {k / f:5.2f}x")


if __name__ == "__main__":
    main()
