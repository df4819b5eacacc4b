#!/usr/bin/env python3
"""Full-size torchvision models through kiln's NNAPI target and the host
NNAPI device (test/nnapi/host_device/, NNAPI's reference semantics).

    /usr/bin/python3 bench/nnapi_full_models.py KILN HOST_LIB WORKDIR
                     [--models a,b] [--timeout S]

KILN is build/release/tools/kiln/kiln, HOST_LIB
build/release/test/nnapi/libkiln_nnapi_host.so. The models are exported into
WORKDIR as bench/vulkan_full_models.py does (seeded random weights, BatchNorm
statistics randomized, nothing downloaded), which also shares them. For each:

  fp32   `kiln convert --target nnapi` (the lowest feature level that works),
         `kiln run` through the host device, against `kiln run` of the .onnx
         (the reference interpreter): max|a-b| <= 1e-4 * max|b| passes
  fp16   `kiln convert --target nnapi --quantize fp16` (relaxed), run as
         AOSP's reference (fp32) and as a strict fp16 driver (the host
         device's KILN_NNAPI_HOST_RELAXED=fp16): SQNR against fp32
  int8   `kiln convert --quantize int8 --calib NAME.input.npz` for the CPU
         and for NNAPI at levels 29 and 30; the QUANTIZE/DEQUANTIZE
         operations left inside the NNAPI model, the NNAPI output against
         the CPU int8 file's, in quanta of the output's scale, and the SQNR
         of both against the fp32 reference

A row is appended to WORKDIR/nnapi_full_models.md as soon as it is done.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vulkan_full_models import SIZES, export, first, run  # noqa: E402

MODELS = ["squeezenet1_1", "mobilenet_v3_small", "shufflenet_v2_x1_0",
          "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "resnet18",
          "googlenet"]


def sqnr(a, b):
    n = float(np.sum((a - b).astype(np.float64) ** 2))
    return 200.0 if n == 0 else 10 * np.log10(float(np.sum(b.astype(np.float64) ** 2)) / n)


def one(kiln, env, workdir, name, timeout):
    base = os.path.join(workdir, name)
    row = {"model": name}
    ref = base + ".ref.out.npz"
    if not os.path.exists(ref):
        _, err, _ = run([kiln, "run", base + ".onnx", "--input", base + ".input.npz",
                         "-o", ref], timeout)
        if err:
            row["error"] = "interpreter: " + err.splitlines()[0]
            return row
    b = first(ref)
    out = base + ".nnapi.kiln"
    stdout, err, dt = run([kiln, "convert", "--target", "nnapi", base + ".onnx",
                           "-o", out, "--json"], timeout)
    if err:
        row["error"] = "convert: " + err.splitlines()[0]
        return row
    j = json.loads(stdout)
    row.update(convert_s=round(dt, 1), level=j["feature_level"],
               operations=j["operations"], mb=round(j["file_bytes"] / 1e6, 2))
    _, err, dt = env_run(env, [kiln, "run", out, "--input", base + ".input.npz",
                               "-o", base + ".nnapi.out.npz"], timeout)
    if err:
        row["error"] = "run: " + err.splitlines()[0]
        return row
    a = first(base + ".nnapi.out.npz")
    d = float(np.max(np.abs(a - b)))
    row.update(run_s=round(dt, 1), rel=d / float(np.max(np.abs(b))))
    row["fp32"] = "pass" if d <= 1e-4 * float(np.max(np.abs(b))) else "FAIL"
    # fp16 (relaxed): the reference and a strict fp16 driver.
    h = base + ".nnapi-fp16.kiln"
    _, err, _ = run([kiln, "convert", "--target", "nnapi", "--quantize", "fp16",
                     base + ".onnx", "-o", h], timeout)
    if err:
        row["fp16"] = "convert: " + err.splitlines()[-1].strip()
    else:
        for mode in ("reference", "fp16"):
            _, err, _ = env_run(dict(env, KILN_NNAPI_HOST_RELAXED=mode),
                                [kiln, "run", h, "--input", base + ".input.npz",
                                 "-o", h + "." + mode + ".out.npz"], timeout)
            key = "fp16_sqnr_" + ("strict" if mode == "fp16" else mode)
            row[key] = ("run: " + err.splitlines()[0]) if err else \
                round(sqnr(first(h + "." + mode + ".out.npz"), b), 1)
    # int8: the CPU file, then NNAPI at 29 and 30.
    cpu8 = base + ".cpu-int8.kiln"
    calib = ["--quantize", "int8", "--calib", base + ".input.npz"]
    _, err, _ = run([kiln, "convert", base + ".onnx", "-o", cpu8] + calib, timeout)
    if err:
        row["error"] = "int8 convert (cpu): " + err.splitlines()[0]
        return row
    _, err, _ = run([kiln, "run", cpu8, "--input", base + ".input.npz", "-o",
                     base + ".cpu-int8.out.npz"], timeout)
    if err:
        row["error"] = "int8 run (cpu): " + err.splitlines()[0]
        return row
    c = first(base + ".cpu-int8.out.npz")
    row["cpu_int8_sqnr"] = round(sqnr(c, b), 1)
    for level in (29, 30):
        q = base + ".nnapi-int8-%d.kiln" % level
        stdout, err, _ = run([kiln, "convert", "--target", "nnapi",
                              "--nnapi-feature-level", str(level), base + ".onnx",
                              "-o", q, "--json"] + calib, timeout)
        if err:
            row["int8_%d" % level] = "convert: " + err.splitlines()[-1].strip()
            continue
        conv = json.loads(stdout)
        _, err, _ = env_run(env, [kiln, "run", q, "--input", base + ".input.npz",
                                  "-o", q + ".out.npz"], timeout)
        if err:
            row["int8_%d" % level] = "run: " + err.splitlines()[0]
            continue
        n = first(q + ".out.npz")
        # Differences from the CPU int8 file in units of the output's step:
        # the smallest nonzero difference between distinct CPU output values.
        steps = np.diff(np.unique(c))
        quantum = float(steps[steps > 0].min()) if steps.size else 0.0
        row["int8_%d" % level] = {
            "q_dq_inside": conv.get("quantize_conversions"),
            "sqnr": round(sqnr(n, b), 1),
            "sqnr_minus_cpu": round(sqnr(n, b) - sqnr(c, b), 2),
            "quanta_vs_cpu": round(float(np.max(np.abs(n - c))) / quantum, 2)
            if quantum else None,
            "top1_same_as_cpu": bool(np.argmax(n) == np.argmax(c))}
    return row


def env_run(env, cmd, timeout):
    old = dict(os.environ)
    os.environ.update(env)
    try:
        return run(cmd, timeout)
    finally:
        os.environ.clear()
        os.environ.update(old)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("host_lib")
    ap.add_argument("workdir")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--timeout", type=int, default=1800)
    args = ap.parse_args()
    env = {"KILN_NNAPI_LIBRARY": os.path.abspath(args.host_lib)}
    os.makedirs(args.workdir, exist_ok=True)
    md = os.path.join(args.workdir, "nnapi_full_models.md")
    for name in args.models.split(","):
        if name not in SIZES:
            ap.error("unknown model " + name)
        export(name, args.workdir)
        r = one(args.kiln, env, args.workdir, name, args.timeout)
        line = json.dumps(r)
        print(line, flush=True)
        with open(md, "a") as f:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
