#!/usr/bin/env python3
"""Transformers, ConvNeXt and a YOLO-shaped detector on the CPU at 1 thread: kiln against ONNX
Runtime, in one run (not part of ctest).

    bench/transformers_vs_ort.py KILN ORT_DIR WORKDIR [--models a,b] [--runs N]
                                 [--rounds R]

Models (torchvision architectures and a BERT-style encoder, seeded random
weights, nothing downloaded), exported by torch.onnx.export (opset 17):
  vit_tiny   VisionTransformer in the DeiT-tiny shape: 224x224, patch 16,
             12 layers, hidden 192, 3 heads, MLP 768
  bert       the 2-layer BERT-style encoder of test/sequence-models (d 128,
             4 heads, FF 512) on 128 token ids
  convnext_t torchvision convnext_tiny, 224x224
  yolo320    the YOLOv5-shaped detector of test/detection-models (width 16,
             3 classes, boxes decoded in the graph), 320x320
  kws_lstm   the keyword-spotting LSTM of test/sequence-models (2 layers,
             hidden 64, 49 frames of 40 MFCCs)
  kws_gru    the same with GRU layers
For each: `kiln convert` (-O2, CPU target), then in alternating rounds
`kiln bench --threads 1` (median of RUNS) and ONNX Runtime (onnxruntime-node
in ORT_DIR, 1 intra-op thread, all graph optimizations, median of RUNS);
the medians over rounds are compared as kiln / ORT latency. Also prints
kiln's slowest operator kinds (`kiln bench --profile`).
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import warnings

import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "seq", os.path.join(HERE, "..", "test", "sequence-models", "make_models.py"))
seq = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seq)
spec = importlib.util.spec_from_file_location(
    "yolo", os.path.join(HERE, "..", "test", "detection-models", "make_yolo.py"))
yolo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(yolo)


def models():
    return {
        "vit_tiny": (lambda: torchvision.models.VisionTransformer(
            image_size=224, patch_size=16, num_layers=12, num_heads=3,
            hidden_dim=192, mlp_dim=768), "x", [1, 3, 224, 224], "float32"),
        "bert": (lambda: seq.TinyBert(seq=128), "ids", [1, 128], "int64"),
        "convnext_t": (lambda: torchvision.models.convnext_tiny(), "x",
                       [1, 3, 224, 224], "float32"),
        "yolo320": (lambda: yolo.Yolo(), "images", [1, 3, 320, 320], "float32"),
        "kws_lstm": (lambda: seq.Kws(torch.nn.LSTM), "x", [1, 49, 40], "float32"),
        "kws_gru": (lambda: seq.Kws(torch.nn.GRU), "x", [1, 49, 40], "float32"),
    }


def export(name, make, input_name, shape, dtype, work):
    path = os.path.join(work, name + ".onnx")
    if os.path.exists(path):
        return path
    torch.manual_seed(0)
    model = make().eval()
    x = (torch.randint(1, 1000, shape) if dtype == "int64"
         else torch.randn(*shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, opset_version=17,
                          input_names=[input_name], output_names=["output"])
    return path


def kiln_bench(kiln, path, runs, profile=False):
    cmd = [kiln, "bench", path, "--threads", "1", "--runs", str(runs), "--json"]
    if profile:
        cmd = [kiln, "bench", path, "--threads", "1", "--runs", str(runs), "--profile"]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def ort_bench(ort_dir, path, input_name, shape, dtype, runs):
    out = subprocess.run(
        ["node", os.path.join(HERE, "ort_bench.js"), ort_dir, path, input_name,
         "x".join(map(str, shape)), str(runs), "1", dtype],
        check=True, capture_output=True, text=True).stdout
    return statistics.median(json.loads(out)["run_ms"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kiln")
    ap.add_argument("ort_dir")
    ap.add_argument("workdir")
    ap.add_argument("--models", default="vit_tiny,bert,convnext_t")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.ort_dir = os.path.abspath(args.ort_dir)
    os.makedirs(args.workdir, exist_ok=True)
    flags = open('/proc/cpuinfo').read()
    print('cpu: ' + flags.split('model name')[1].split(':')[1].splitlines()[0].strip() +
          (', AVX-512' if ' avx512f' in flags else ', AVX2' if ' avx2' in flags else ''))
    for name in args.models.split(","):
        make, input_name, shape, dtype = models()[name]
        onnx_path = export(name, make, input_name, shape, dtype, args.workdir)
        kiln_path = os.path.join(args.workdir, name + ".kiln")
        subprocess.run([args.kiln, "convert", onnx_path, "-o", kiln_path],
                       check=True, capture_output=True)
        kiln_ms, ort_ms = [], []
        for _ in range(args.rounds):
            kiln_ms.append(kiln_bench(args.kiln, kiln_path, args.runs))
            ort_ms.append(ort_bench(args.ort_dir, onnx_path, input_name, shape,
                                    dtype, args.runs))
        k, o = statistics.median(kiln_ms), statistics.median(ort_ms)
        print(f"{name}: kiln {k:.2f} ms, ONNX Runtime {o:.2f} ms, "
              f"kiln / ORT {k / o:.2f}x (1 thread, medians of {args.rounds} "
              f"rounds of {args.runs} runs)")
        prof = kiln_bench(args.kiln, kiln_path, args.runs, profile=True)
        kinds = [l.strip() for l in prof.split("slowest operators")[0].splitlines()
                 if l.startswith("    ") and " ms" in l]
        kinds.sort(key=lambda l: -float(l.split()[-2]))
        print("  kiln by operator kind: " + "; ".join(kinds[:5]))


if __name__ == "__main__":
    sys.exit(main())
