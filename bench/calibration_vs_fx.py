#!/usr/bin/env python3
"""Calibration throughput: `kiln calibrate` vs PyTorch FX static quantization
(prepare_fx with the default qnnpack qconfig, then the calibration forward
passes), on the same images, on this machine, in one run. Not part of ctest.

    /usr/bin/python3 bench/calibration_vs_fx.py [BUILD_DIR] [--images N ...]
        [--threads T ...] [--repeat R] [--models NAME ...]

Writes seeded 64x64 PNGs (one folder per image count, the first N of the
same sequence); both sides decode the same files and normalize them the same
way, (x/255 - 0.5) / 0.25. Models: the example MobileNetV2 and ResNet, the
same architecture on both sides (the ONNX files come from
examples/make_examples.py; see torch_model for the weights).

What each side's time covers, end to end:
  kiln  process start, ONNX load, the -O2 pipeline, PNG decode, the
        interpreter and the observers, writing the .kcal;
  FX    prepare_fx (trace, fuse, observers), PIL decode + normalize, the
        forward passes with the observers.
Each (model, threads, images) cell is run R times, kiln and FX alternating,
and the best time of each side is kept: the machine is shared, and the best
run is the one least disturbed. The table gives images per second and kiln's
ratio over FX. Then a breakdown: kiln's fixed cost (a 1-image run) and its
cost per image; FX's prepare_fx, decode, observed and plain forward passes.
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

MODELS = {"mobilenetv2_small": (make_examples.MobileNetV2Small, 2),
          "resnet_small": (make_examples.ResNetSmall, 18)}
MEAN, STD = 0.5, 0.25


def write_images(folder, count):
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(count):
        img = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
        Image.fromarray(img).save(os.path.join(folder, f"{i:05d}.png"))


def torch_model(name):
    """The model as examples/make_examples.py builds it: the ResNet's weights
    are the ones in its ONNX file (it is built right after seeding); the
    MobileNet is built before any seeding there, so only its BatchNorm
    statistics match (the throughput does not depend on the values)."""
    cls, seed = MODELS[name]
    torch.manual_seed(2 if name == "resnet_small" else seed)
    model = cls()
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    make_examples.randomize_bn(model, gen)
    return model.eval()


def decode(path):
    x = np.asarray(Image.open(path).convert("RGB"), np.float32) / 255.0
    return torch.from_numpy(((x - MEAN) / STD).transpose(2, 0, 1)[None].copy())


def fx_seconds(name, folder, threads):
    torch.set_num_threads(threads)
    torch.backends.quantized.engine = "qnnpack"
    files = sorted(os.listdir(folder))
    model = torch_model(name)
    example = torch.zeros(1, 3, 64, 64)
    start = time.perf_counter()
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"), (example,))
    with torch.no_grad():
        for f in files:
            prepared(decode(os.path.join(folder, f)))
    return time.perf_counter() - start


def fx_phases(name, folder, threads):
    """prepare_fx, decode alone, observed forward alone, plain forward alone."""
    torch.set_num_threads(threads)
    torch.backends.quantized.engine = "qnnpack"
    files = sorted(os.listdir(folder))
    model = torch_model(name)
    t0 = time.perf_counter()
    prepared = prepare_fx(model, get_default_qconfig_mapping("qnnpack"),
                          (torch.zeros(1, 3, 64, 64),))
    t1 = time.perf_counter()
    xs = [decode(os.path.join(folder, f)) for f in files]
    t2 = time.perf_counter()
    with torch.no_grad():
        for x in xs:
            prepared(x)
    t3 = time.perf_counter()
    with torch.no_grad():
        for x in xs:
            model(x)
    t4 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, t4 - t3


def kiln_seconds(kiln, model, folder, threads, out, limit=0):
    cmd = [kiln, "calibrate", model, "--calib", folder, "--calib-mean",
           str(MEAN), "--calib-std", str(STD), "--threads", str(threads),
           "-o", out]
    if limit:
        cmd += ["--calib-limit", str(limit)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--images", type=int, nargs="+", default=[200, 1000])
    ap.add_argument("--threads", type=int, nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    a = ap.parse_args()
    kiln = os.path.join(a.build, "tools", "kiln", "kiln")
    cores = os.cpu_count() or 1
    threads = sorted(set(a.threads or [1, cores]))
    with tempfile.TemporaryDirectory() as tmp:
        folders = {n: os.path.join(tmp, f"images{n}") for n in a.images}
        for n, folder in folders.items():
            write_images(folder, n)
        out = os.path.join(tmp, "stats.kcal")
        print(f"64x64 PNGs, {cores} cores, best of {a.repeat}, "
              f"load average {os.getloadavg()[0]:.1f}")
        for name in a.models:
            onnx = os.path.join(HERE, "..", "examples", "models", name + ".onnx")
            for t in threads:
                for n, folder in folders.items():
                    k = f = float("inf")
                    for _ in range(a.repeat):
                        k = min(k, kiln_seconds(kiln, onnx, folder, t, out))
                        f = min(f, fx_seconds(name, folder, t))
                    print(f"{name:18s} threads {t} images {n:5d}: kiln "
                          f"{n / k:7.1f} img/s, PyTorch FX {n / f:6.1f} img/s, "
                          f"ratio {f / k:5.1f}x", flush=True)
        print("breakdown at 1 thread, the largest image count "
              f"({max(a.images)}):")
        n = max(a.images)
        for name in a.models:
            onnx = os.path.join(HERE, "..", "examples", "models", name + ".onnx")
            fixed = min(kiln_seconds(kiln, onnx, folders[n], 1, out, 1)
                        for _ in range(a.repeat))
            total = min(kiln_seconds(kiln, onnx, folders[n], 1, out)
                        for _ in range(a.repeat))
            per = (total - fixed) / (n - 1) if n > 1 else total
            phases = min((fx_phases(name, folders[n], 1)
                          for _ in range(a.repeat)), key=sum)
            prep, dec, obs, plain = phases
            print(f"  {name}: kiln fixed {fixed * 1e3:.0f} ms (start, load, "
                  f"-O2, 1 image), {per * 1e3:.2f} ms/image; FX prepare_fx "
                  f"{prep * 1e3:.0f} ms, decode {dec / n * 1e3:.2f} ms/image, "
                  f"observed forward {obs / n * 1e3:.2f} ms/image (plain "
                  f"forward {plain / n * 1e3:.2f})")


if __name__ == "__main__":
    main()
