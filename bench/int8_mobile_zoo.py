#!/usr/bin/env python3
"""int8 on the mobile zoo: MobileNetV3-small, MobileNetV3-large and
EfficientNet-B0 (torchvision architectures, full size, 1x3x224x224).

    /usr/bin/python3 bench/int8_mobile_zoo.py KILN WORKDIR [--runs N] [--rounds R]

Nothing can be downloaded, so the weights are seeded random ones, with
BatchNorm's running statistics re-estimated on random inputs (train mode, 4
batches of 8) so activations keep a realistic scale through the network.
Each model is exported to ONNX (opset 14), converted to fp32 and to int8
(`--quantize int8`, calibrated on 4 seeded normal samples), and reported:
- int8 nodes and float layers (`kiln convert`'s report);
- file sizes and the int8/fp32 ratio;
- latency at 1 thread: `kiln bench --runs N` on the fp32 and the int8 file,
  alternating, R rounds, the median of the rounds' medians, and the ratio;
- fidelity to kiln's own QDQ graph (`kiln opt`, run by the reference
  interpreter), in quanta of each int8 tensor's scale:
  - per layer, isolated (`kiln diff --isolated`): each int8 operator of the
    .kiln given the QDQ graph's values, the worst layer, on every core
    (XNNPACK), on one thread (oneDNN's convolutions on x86) and XNNPACK alone;
  - end to end: the logits of `kiln run` on the same three;
  - the QDQ graph against itself when the input moves by 1e-6 (noise far
    below one input quantum): how far any two int8 implementations that
    differ in a single rounding can drift apart at the logits of this model.
It opens with the CPU model and ISA flags.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np
import torch
import torchvision

MODELS = ["mobilenet_v3_small", "mobilenet_v3_large", "efficientnet_b0"]


def cpu():
    model, flags = "?", set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
    isa = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "amx_int8") if f in flags]
    return f"{model}, {os.cpu_count()} cores, ISA {' '.join(isa)}"


def export(name, path, dynamic_batch=False):
    torch.manual_seed(0)
    m = getattr(torchvision.models, name)(weights=None)
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.reset_running_stats()
            mod.momentum = None
    m.train()
    with torch.no_grad():
        for _ in range(4):
            m(torch.randn(8, 3, 224, 224))
    m.eval()
    axes = {"input": {0: "batch"}, "logits": {0: "batch"}} if dynamic_batch else None
    torch.onnx.export(m, torch.zeros(1, 3, 224, 224), path, opset_version=14,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes=axes)


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def median_latency(kiln, path, runs):
    out = json.loads(run(kiln, "bench", path, "--threads", "1", "--runs", str(runs), "--json"))
    for key in ("median_ms", "latency_median_ms"):
        if key in out:
            return out[key]
    return out["latency"]["median_ms"]


def quanta(got, ref, report):
    scales = {t["name"]: t["scales"][0] for t in report["quantize"]["tensors"]
              if t["kind"] == "activation"}
    g, r = np.load(got), np.load(ref)
    return max(np.abs(g[n].astype(np.float64) - r[n]).max() / scales[n] for n in r.files)


# The three ways the CPU target runs an int8 file: every core (XNNPACK),
# one thread (oneDNN's convolutions on x86), and XNNPACK alone.
KERNELS = {"every core": [], "1 thread": ["--threads", "1"],
           "XNNPACK only": ["--threads", "1", "--no-onednn"]}


def isolated_quanta(kiln, kir, kiln_file, inputs, flags):
    out = json.loads(run(kiln, "diff", kir, kiln_file, "--inputs", inputs,
                         "--isolated", "--json", *flags))
    return max(l["max_quanta"] for l in out["layers"] if "max_quanta" in l)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("workdir")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    w = lambda f: os.path.join(a.workdir, f)
    print(f"CPU: {cpu()}")
    r = np.random.default_rng(0)
    np.save(w("calib.npy"), r.standard_normal((4, 3, 224, 224)).astype(np.float32))
    x = r.standard_normal((1, 3, 224, 224)).astype(np.float32)
    np.savez(w("in.npz"), input=x)
    np.savez(w("in-moved.npz"),
             input=x + (1e-6 * r.standard_normal(x.shape)).astype(np.float32))
    speed, fidelity = [], []
    for name in MODELS:
        onnx = w(f"{name}.onnx")
        if not os.path.exists(onnx):
            export(name, onnx)
        f32, i8, kir = w(f"{name}.fp32.kiln"), w(f"{name}.int8.kiln"), w(f"{name}.int8.kir")
        run(a.kiln, "convert", onnx, "-o", f32)
        calib = ["--quantize", "int8", "--calib", w("calib.npy")]
        rep = json.loads(run(a.kiln, "convert", onnx, "-o", i8, "--json", *calib))
        q = rep["quantize"]
        run(a.kiln, "opt", onnx, "-o", kir, *calib)
        run(a.kiln, "run", kir, "--input", w("in.npz"), "-o", w("kir.npz"))
        run(a.kiln, "run", kir, "--input", w("in-moved.npz"), "-o", w("kir-moved.npz"))
        iso, e2e = [], []
        for flags in KERNELS.values():
            iso.append(isolated_quanta(a.kiln, kir, i8, w("in.npz"), flags))
            run(a.kiln, "run", i8, *flags, "--input", w("in.npz"), "-o", w("kiln.npz"))
            e2e.append(quanta(w("kiln.npz"), w("kir.npz"), rep))
        spread = quanta(w("kir-moved.npz"), w("kir.npz"), rep)
        t32, t8 = [], []
        for _ in range(a.rounds):
            t32.append(median_latency(a.kiln, f32, a.runs))
            t8.append(median_latency(a.kiln, i8, a.runs))
        m32, m8 = statistics.median(t32), statistics.median(t8)
        s32, s8 = os.path.getsize(f32), os.path.getsize(i8)
        speed.append(f"| {name} | {len(q['cpu_int8_nodes'])} | {len(q['cpu_float_layers'])} "
                     f"| {s32 // 1024} | {s8 // 1024} | {s8 / s32:.3f} | {m32:.2f} | {m8:.2f} "
                     f"| {m8 / m32:.2f} |")
        fidelity.append(f"| {name} | " + " / ".join(f"{v:.0f}" for v in iso) + " | "
                        + " / ".join(f"{v:.1f}" for v in e2e) + f" | {spread:.1f} |")
        print(f"{name}: done", file=sys.stderr, flush=True)
    print("| model | int8 nodes | float layers | fp32 KB | int8 KB | size int8/fp32 "
          "| fp32 ms | int8 ms | latency int8/fp32 |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(speed))
    print()
    order = " / ".join(KERNELS)
    print(f"| model | worst int8 layer, isolated, quanta ({order}) "
          f"| logits end to end, quanta ({order}) | QDQ graph vs itself, input moved 1e-6 |")
    print("|---|---|---|---|")
    print("\n".join(fidelity))


if __name__ == "__main__":
    sys.exit(main())
