#!/usr/bin/env python3
"""Partitions with CPU fallback on the full-size torchvision ResNet-18.

    /usr/bin/python3 bench/partitions.py KILN WORKDIR [--runs N]

Builds (into WORKDIR, never committed) torchvision's ResNet-18 at 224x224
with seeded random weights and randomized BatchNorm statistics (nothing is
downloaded), traced to TorchScript, with PyTorch's own output on a seeded
input as the reference. Then:

  check     `kiln convert --target vulkan|nnapi --fallback cpu --on-cpu
            linear`: the partitions `--json` reports under placement, and
            `kiln run` of the file against PyTorch (max |a-b| / max |b|,
            and the elementwise 1e-4 relative + 1e-6 absolute bar)
  bench     three files of the same model, timed in the same process run
            by `kiln bench --profile --json` one after another (same
            threads): all on Vulkan (one partition), three partitions
            (layer3.0 pinned to the CPU with --on-cpu 'layer3.0*': vulkan,
            cpu, vulkan), and all on the CPU. For the three-partition file
            it prints each partition's median run time and boundary copy
            time (kiln_session_partition_info).

Every figure is lavapipe's: Mesa's Vulkan driver running on this machine's
CPU, so a "device" partition competes with the CPU partition for the same
cores and is never faster than it; the transfers are host memcpys. What a
phone's GPU costs is not measured here (docs/targets.md, the cost model).
The NNAPI host device is a reference implementation on the CPU, used for
correctness only; it is not timed.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import torch
import torchvision


def build(work):
    torch.manual_seed(0)
    m = torchvision.models.resnet18(weights=None, num_classes=1000).eval()
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.1, 0.1)
                mod.running_var.uniform_(0.5, 1.5)
    x = torch.from_numpy(np.random.default_rng(7).standard_normal(
        (1, 3, 224, 224)).astype(np.float32))
    traced = torch.jit.trace(m, x)
    path = os.path.join(work, "resnet18.pt")
    traced.save(path)
    with torch.no_grad():
        y = m(x).numpy()
    np.savez(os.path.join(work, "in.npz"), x=x.numpy())
    np.savez(os.path.join(work, "ref.npz"), output=y)
    return path


def kiln(args, *cmd, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([args.kiln, *cmd], capture_output=True, text=True, env=e)
    if r.returncode != 0:
        sys.exit("kiln %s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


def convert(args, model, out, target, *extra):
    return json.loads(kiln(args, "convert", model, "--input-shape",
                           "x=1x3x224x224", "--target", target, "-o", out,
                           "--json", *extra))


def check(args, model, target, env):
    out = os.path.join(args.work, "%s.kiln" % target)
    rep = convert(args, model, out, target, "--fallback", "cpu", "--on-cpu",
                  "linear")
    parts = rep["placement"]["partitions"]
    kiln(args, "run", out, "-i", os.path.join(args.work, "in.npz"), "-o",
         os.path.join(args.work, "%s.npz" % target), env=env)
    a = np.load(os.path.join(args.work, "%s.npz" % target))["output"]
    b = np.load(os.path.join(args.work, "ref.npz"))["output"]
    d = np.abs(a - b)
    bad = int((d > 1e-6 + 1e-4 * np.abs(b)).sum())
    print("%-7s %d partitions (%s), %s; max|a-b|/max|b| %.2e, %d of %d "
          "elements past 1e-4 rel + 1e-6 abs" %
          (target, len(parts), ", ".join(
              "%s %d nodes" % (p["target"], p["nodes"]) for p in parts),
           "; ".join(p["reason"] for p in parts if p["reason"]),
           d.max() / np.abs(b).max(), bad, b.size))


def bench(args, path):
    return json.loads(kiln(args, "bench", path, "--runs", str(args.runs),
                           "--warmup", "2", "--profile", "--json"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kiln")
    ap.add_argument("work")
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model = build(args.work)
    nnapi = {"KILN_NNAPI_LIBRARY": os.environ.get("KILN_NNAPI_LIBRARY", "")}
    check(args, model, "vulkan", {})
    if nnapi["KILN_NNAPI_LIBRARY"]:
        check(args, model, "nnapi", nnapi)
    else:
        print("nnapi   skipped: set KILN_NNAPI_LIBRARY to the host device")

    files = {
        "all vulkan": ("vulkan", []),
        "three partitions": ("vulkan", ["--fallback", "cpu", "--on-cpu",
                                        "layer3.0*"]),
        "all cpu": ("cpu", []),
    }
    results = {}
    for name, (target, extra) in files.items():
        out = os.path.join(args.work, name.replace(" ", "_") + ".kiln")
        rep = convert(args, model, out, target, *extra)
        if "placement" in rep:
            print("%s: %s" % (name, " | ".join(
                "%s %d nodes" % (p["target"], p["nodes"])
                for p in rep["placement"]["partitions"])))
        results[name] = bench(args, out)
    for name, r in results.items():
        print("%-17s median %8.2f ms" % (name, r["median_ms"]))
    three = results["three partitions"]
    for i, p in enumerate(three["partitions"]):
        print("  partition %d %-7s %3d operators  run %8.3f ms  transfers "
              "%6.3f ms" % (i, p["target"], p["operators"], p["run_ms"],
                            p["transfer_ms"]))
    base = results["all vulkan"]["median_ms"]
    print("three partitions / all vulkan: %.2f; all cpu / all vulkan: %.2f" %
          (three["median_ms"] / base, results["all cpu"]["median_ms"] / base))


if __name__ == "__main__":
    main()
