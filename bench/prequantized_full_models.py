#!/usr/bin/env python3
"""Full-size torchvision models quantized by PyTorch itself, through kiln
without --quantize: the issue-45 figures.

    /usr/bin/python3 bench/prequantized_full_models.py KILN HOST_LIB WORKDIR
                     [--models a,b] [--samples N]

MobileNetV2, ResNet-18 and MobileNetV3-large (224x224, 1000 classes, seeded
random weights, BatchNorm statistics randomized, nothing downloaded) are
quantized with FX and the qnnpack config (calibrated on 16 seeded random
images; a .contiguous() before each ReLU6, as
test/prequantized-models/make_fixtures.py explains), traced and exported as
QDQ ONNX. For each form and target (CPU; NNAPI through the host device at
the lowest level that works, 30 for MobileNetV3's HARD_SWISH) it reports the
layers kept float, the Q/DQ operators, and, over N seeded random inputs, the
SQNR against PyTorch's own quantized output and whether the top-1 agrees;
for the CPU files also the worst layer in quanta against the imported graph
(`kiln diff --isolated`). A last row per model runs the exported QDQ graph
itself in kiln's reference interpreter: how far the file, as ONNX defines
it, is from PyTorch's kernels. A row is appended to
WORKDIR/prequantized_full_models.md as soon as it is done.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import warnings

import numpy as np
import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "fixtures", os.path.join(HERE, "..", "test", "prequantized-models", "make_fixtures.py"))
fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)


def build(name):
    tv = torchvision.models
    return {"mobilenet_v2": tv.mobilenet_v2, "resnet18": tv.resnet18,
            "mobilenet_v3_large": tv.mobilenet_v3_large}[name]()


def sqnr(ref, got):
    noise = ((got - ref) ** 2).sum()
    return 200.0 if noise == 0 else 10 * np.log10((ref ** 2).sum() / noise)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("host_lib")
    ap.add_argument("workdir")
    ap.add_argument("--models", default="mobilenet_v2,resnet18,mobilenet_v3_large")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--config", default="qnnpack", choices=["qnnpack", "fbgemm"],
                    help="FX qconfig (fbgemm: per-channel weights; its model runs "
                         "on QNNPACK's kernels, Debian's libtorch has no FBGEMM)")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    env = dict(os.environ, KILN_NNAPI_LIBRARY=a.host_lib)
    table = os.path.join(a.workdir, "prequantized_full_models.md")
    with open(table, "a") as f:
        f.write("| model | form | target | float layers | Q/DQ | SQNR vs PyTorch (min, mean) dB | top-1 same | worst layer vs QDQ graph |\n|---|---|---|---|---|---|---|---|\n")
    for name in a.models.split(","):
        torch.manual_seed(0)
        model = build(name).eval()
        fixtures.randomize_bn(model, torch.Generator().manual_seed(1))
        gen = torch.Generator().manual_seed(2)
        example = torch.randn(1, 3, 224, 224, generator=gen)
        prepared = prepare_fx(model, get_default_qconfig_mapping(a.config), (example,))
        with torch.no_grad():
            for _ in range(16):
                prepared(torch.randn(1, 3, 224, 224, generator=gen))
        q = fixtures.contiguous_before_hardtanh(convert_fx(prepared))
        base = os.path.join(a.workdir, name + "." + a.config)
        xs = [torch.randn(1, 3, 224, 224, generator=gen) for _ in range(a.samples)]
        with torch.no_grad():
            refs = [q(x).numpy() for x in xs]
            torch.jit.trace(q, xs[0]).save(base + ".traced.pt")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(q, xs[0], base + ".onnx", opset_version=13,
                              input_names=["x"], output_names=["output"])
        for i, x in enumerate(xs):
            np.savez(f"{base}.in{i}.npz", x=x.numpy())
        for form, path in (("TorchScript", base + ".traced.pt"), ("QDQ ONNX", base + ".onnx")):
            for target in ("cpu", "nnapi"):
                args = [a.kiln, "convert", path, "--input-shape", "1x3x224x224",
                        "--target", target, "-o", base + ".kiln", "--stats"]
                if target == "nnapi" and name == "mobilenet_v3_large":
                    args += ["--nnapi-feature-level", "30"]
                log = subprocess.run(args, capture_output=True, text=True, env=env)
                if log.returncode:
                    row = f"| {name} ({a.config}) | {form} | {target} | convert failed: {log.stderr.strip()[:200]} |"
                else:
                    arrived = re.search(r"(\d+) stay float", log.stdout)
                    qdq = (len(re.findall(r"QUANTIZE \[", log.stdout)) if target == "cpu"
                           else re.search(r"int8 -> float: (\d+)", log.stdout).group(1) + " inside")
                    dbs, same = [], 0
                    for i in range(len(xs)):
                        subprocess.run([a.kiln, "run", base + ".kiln", "-i", f"{base}.in{i}.npz",
                                        "-o", base + ".out.npz"], check=True,
                                       capture_output=True, env=env)
                        got = np.load(base + ".out.npz")
                        got = got[got.files[0]]
                        dbs.append(sqnr(refs[i].astype(np.float64), got.astype(np.float64)))
                        same += int(got.argmax() == refs[i].argmax())
                    worst = "-"
                    if target == "cpu":
                        d = subprocess.run([a.kiln, "diff", path, base + ".kiln", "--input-shape",
                                            "1x3x224x224", "--inputs", f"{base}.in0.npz",
                                            "--isolated"], capture_output=True, text=True, env=env)
                        m = re.search(r"int8 layers: (\d+), worst ([0-9.]+) quanta", d.stdout)
                        worst = f"{m.group(2)} quanta over {m.group(1)} int8 layers" if m else "?"
                    row = (f"| {name} ({a.config}) | {form} | {target} | {arrived.group(1) if arrived else '?'} | {qdq} | "
                           f"{min(dbs):.1f}, {np.mean(dbs):.1f} | {same}/{len(xs)} | {worst} |")
                print(row, flush=True)
                with open(table, "a") as f:
                    f.write(row + "\n")
        # The exported QDQ graph itself, run by kiln's reference interpreter:
        # what ONNX says the file computes, and so the best any faithful
        # converter of it can reach against PyTorch's kernels.
        dbs, same = [], 0
        for i in range(len(xs)):
            subprocess.run([a.kiln, "run", base + ".onnx", "-i", f"{base}.in{i}.npz",
                            "-o", base + ".graph.npz"], check=True, capture_output=True)
            got = np.load(base + ".graph.npz")
            got = got[got.files[0]]
            dbs.append(sqnr(refs[i].astype(np.float64), got.astype(np.float64)))
            same += int(got.argmax() == refs[i].argmax())
        row = (f"| {name} ({a.config}) | QDQ ONNX | the graph itself (interpreter) | - | - | "
               f"{min(dbs):.1f}, {np.mean(dbs):.1f} | {same}/{len(xs)} | - |")
        print(row, flush=True)
        with open(table, "a") as f:
            f.write(row + "\n")


if __name__ == "__main__":
    main()
