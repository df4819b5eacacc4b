#!/usr/bin/env python3
"""The runtime end to end on another machine: models compiled on the host,
run by a cross-built kiln-run-npy (under QEMU), against the host's reference
interpreter.

    run_e2e.py --kiln HOST_KILN --runner KILN_RUN_NPY --work DIR
               [--emulator "qemu-aarch64 -L ..."] [--jobs N] [--filter S]
               [--nnapi-library LIBKILN_NNAPI_HOST.so]

Models: examples/models/*.onnx, the TorchScript fixtures
test/torchscript-models/*.pt (traced and scripted), and the text-IR models
of test/cross/models (fp32 only: the operators arm64 runs on Eigen), each
with NAME.input.npz
(the .pt files imported once, at the shapes of those arrays, with
`kiln opt -O0`, and the rest done from that .kir). Each is converted in four
modes (and the example models, examples/models, in two NNAPI modes more),
and its reference computed by `kiln run` (the interpreter) on the graph that
mode runs:

  fp32          kiln convert; the unoptimized graph (as kiln-cpu-e2e)
  fp16          kiln convert --quantize fp16; `kiln opt --quantize fp16`
  int8-dynamic  kiln convert --quantize int8-dynamic; the graph of
                `kiln opt --quantize int8-dynamic` with the CPU lowering's
                rule applied: dequantize(dynamic_quantize(x)) is x (the
                runtime widens the int8 weights to f32 and keeps the
                activations f32: no qd8 kernels in this XNNPACK)
  int8          kiln convert --quantize int8 --calib NAME.input.npz; the QDQ
                graph of `kiln opt --quantize int8` with the same calibration
  nnapi         kiln convert --target nnapi (the lowest feature level that
                can express it); the unoptimized graph, as fp32
  nnapi-int8    kiln convert --target nnapi --nnapi-feature-level 29
                --quantize int8 --calib NAME.input.npz (uint8 with shifted
                zero points); the QDQ graph, as int8

The runner runs every file on the default kernels (XNNPACK), which must run
every operator the compiler planned for XNNPACK (the runtime would fall back
to its reference kernels where XNNPACK refuses one), and on the reference
kernels. The NNAPI files run once, on the default kernels, with
KILN_NNAPI_LIBRARY set to --nnapi-library (the host NNAPI device,
test/nnapi/host_device/, built for the target): every operator that the
compiler left on the host ("host_operators" of its report) must run there
and the rest on NNAPI. Tolerances: those of kiln-cpu-e2e, the same dtype and
shape and, for fp32, fp16, int8-dynamic and nnapi, 1e-4 relative plus 1e-6
absolute (integers exact); for int8, finite values at an SQNR of at least
50 dB against the QDQ graph (integer kernels may round a value the other way
where the float graph sits on a rounding tie); for nnapi-int8, finite values
at an SQNR of at least 30 dB against the QDQ graph, kiln-nnapi-e2e's bar
(NNAPI's integer requantization differs from the QDQ graph's float
requantization by up to one quantum per layer: resnet_small.onnx keeps
43.6 dB, on x86 as on arm64).
Prints a line per model and mode, then "N passed, M failed"; exits 1 on any
failure.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODES = ["fp32", "fp16", "int8-dynamic", "int8"]
# Modes run for the example models only (examples/models).
NNAPI_MODES = ["nnapi", "nnapi-int8"]
SQNR_MODES = ("int8", "nnapi-int8")
KERNELS = ["default", "reference"]
# kiln-cpu-e2e's tolerances.
REL_TOL, ABS_TOL = 1e-4, 1e-6
MIN_INT8_SQNR_DB = 50.0
# kiln-nnapi-e2e's (test/nnapi/NnapiEndToEndMain.cpp: MinInt8SqnrDb).
MIN_NNAPI_INT8_SQNR_DB = 30.0


class StepFailed(Exception):
    pass


def run(cmd, what, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        raise StepFailed(f"{what}: exit {p.returncode}{': ' + err[-1] if err else ''}")
    return p.stdout


def models():
    """(name, path, inputs .npz, modes) of every example model and
    fixture."""
    out = []
    for folder, exts, modes in [("examples/models", (".onnx",), MODES + NNAPI_MODES),
                                ("test/torchscript-models", (".pt",), MODES),
                                ("test/cross/models", (".kir",), ["fp32"])]:
        d = os.path.join(ROOT, folder)
        for f in sorted(os.listdir(d)):
            if f.endswith(exts):
                out.append((f, os.path.join(d, f),
                            os.path.join(d, f.split(".")[0] + ".input.npz"), modes))
    return out


NAME = r'%(?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9_.]+)'
DYNQ = re.compile(rf"^\s*({NAME}), ({NAME}), ({NAME}) = dynamic_quantize\(({NAME})\)")
DEQ = re.compile(rf"^\s*({NAME}) = dequantize\(({NAME})[,)]")


def strip_dynamic_activations(kir):
    """The int8-dynamic graph as the CPU target runs it: every
    dequantize(dynamic_quantize(x)) replaced by x, the pair removed
    (backends/kilnops/QuantLowering.cpp: lowerDequantize)."""
    text = open(kir).read().splitlines(keepends=True)
    quantized = {}  # dynamic_quantize's first result -> its operand
    for line in text:
        m = DYNQ.match(line)
        if m:
            quantized[m.group(1)] = m.group(4)
    alias, keep = {}, []
    for line in text:
        if DYNQ.match(line):
            continue
        m = DEQ.match(line)
        if m and m.group(2) in quantized:
            alias[m.group(1)] = quantized[m.group(2)]
            continue
        keep.append(line)
    if not alias:
        raise StepFailed(f"{kir}: no dequantize(dynamic_quantize(x)) to remove")
    body = re.sub(NAME, lambda m: alias.get(m.group(0), m.group(0)), "".join(keep))
    for q in quantized:
        if re.search(re.escape(q) + r"(?![A-Za-z0-9_.])", body):
            raise StepFailed(f"{kir}: {q} is used other than by a dequantize")
    with open(kir, "w") as f:
        f.write(body)


def compare_close(got, ref):
    """What differs, by kiln-cpu-e2e's rule; else the largest error as a
    share of the tolerance."""
    if got.dtype != ref.dtype or got.shape != ref.shape:
        return f"{got.dtype}{list(got.shape)}, expected {ref.dtype}{list(ref.shape)}"
    if ref.dtype.kind not in "fc":
        bad = np.flatnonzero(got.reshape(-1) != ref.reshape(-1))
        return f"integer value differs at {bad[0]}" if bad.size else 0.0
    g, r = got.astype(np.float64).reshape(-1), ref.astype(np.float64).reshape(-1)
    special = ~np.isfinite(g) | ~np.isfinite(r)
    same_special = (np.isnan(g) & np.isnan(r)) | (g == r)
    share = np.where(special, 0.0, np.abs(g - r) / (ABS_TOL + REL_TOL * np.abs(r)))
    bad = np.flatnonzero((special & ~same_special) | (share > 1))
    if bad.size:
        i = bad[0]
        return f"at {i}: {g[i]:.7e} vs reference {r[i]:.7e} ({bad.size} elements off)"
    return float(share.max()) if share.size else 0.0


def compare_int8(got, ref, min_db=MIN_INT8_SQNR_DB):
    """What differs, by kiln-cpu-e2e's rule for int8 models; else the SQNR."""
    if got.dtype != ref.dtype or got.shape != ref.shape:
        return f"{got.dtype}{list(got.shape)}, expected {ref.dtype}{list(ref.shape)}"
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if not np.all(np.isfinite(g)):
        return f"at {np.flatnonzero(~np.isfinite(g.reshape(-1)))[0]}: not finite"
    noise = float(((g - r) ** 2).sum())
    db = 200.0 if noise == 0 else 10 * np.log10(float((r * r).sum()) / noise)
    return db if db >= min_db else \
        f"SQNR {db:.1f} dB against the QDQ graph, below {min_db:g} dB"


def check_model(name, path, npz, modes, a):
    """[(mode, verdict, detail)] for one model."""
    work = os.path.join(a.work, name)
    shutil.rmtree(work, ignore_errors=True)  # nothing of an earlier run counts
    os.makedirs(os.path.join(work, "in"))
    kiln = [a.kiln]
    arrays = np.load(npz)
    for k in arrays.files:
        np.save(os.path.join(work, "in", k + ".npy"), arrays[k])
    src = path
    if path.endswith(".pt"):
        shapes = []
        for k in arrays.files:
            shapes += ["--input-shape", k + "=" + "x".join(map(str, arrays[k].shape))]
        src = os.path.join(work, "source.kir")
        run(kiln + ["opt", path, "-O0", "-o", src] + shapes, "kiln opt -O0 (import)")
    results = []
    for mode in modes:
        base = os.path.join(work, mode)
        t0 = time.time()
        try:
            nnapi = mode in NNAPI_MODES
            quant, ref_graph, target = [], src, []
            if nnapi:
                target = ["--target", "nnapi"]
                if mode == "nnapi-int8":
                    target += ["--nnapi-feature-level", "29"]
            if mode not in ("fp32", "nnapi"):
                quant = ["--quantize", "int8" if mode == "nnapi-int8" else mode]
                if mode in SQNR_MODES:
                    quant += ["--calib", npz]
                ref_graph = base + ".kir"
                run(kiln + ["opt", src, "-o", ref_graph] + quant, "kiln opt")
                if mode == "int8-dynamic":
                    strip_dynamic_activations(ref_graph)
            report = json.loads(run(kiln + ["convert", src, "-o", base + ".kiln", "--json"]
                                    + target + quant, "kiln convert"))
            run(kiln + ["run", ref_graph, "--input", npz, "-o", base + ".ref.npz"],
                "kiln run (reference interpreter)")
            ref = np.load(base + ".ref.npz")
            out = base + ".out"
            kernels, env = KERNELS, None
            if nnapi:
                if not a.nnapi_library:
                    raise StepFailed("no --nnapi-library (the host NNAPI device)")
                kernels = ["default"]
                env = dict(os.environ, KILN_NNAPI_LIBRARY=a.nnapi_library)
            run(a.emulator + [a.runner, base + ".kiln", os.path.join(work, "in"), out]
                + kernels, "kiln-run-npy", env)
            names = open(os.path.join(out, "names.txt")).read().splitlines()
            if sorted(names) != sorted(ref.files):
                raise StepFailed(f"outputs {names}, the reference has {ref.files}")
            problems, worst, least_db = [], 0.0, 200.0
            # The runtime falls back to its reference kernels where XNNPACK
            # refuses an operator: the default kernels must run every
            # operator the compiler planned for XNNPACK on it (or on oneDNN,
            # on x86).
            engines = {k: open(os.path.join(out, k, "engines.txt")).read().split()
                       for k in kernels}
            if nnapi:
                # The NNAPI executor: "host" for each operator the compiler
                # left on the host, "nnapi" for the rest.
                on_host = engines["default"].count("host")
                if on_host != report["host_operators"]:
                    problems.append(f"{on_host} operators on the host, the compiler "
                                    f"left {report['host_operators']} there")
                if set(engines["default"]) - {"host"} != {"nnapi"}:
                    problems.append("engines " + ", ".join(sorted(set(engines["default"])))
                                    + ": expected nnapi (and host)")
            else:
                native = len(engines["default"]) - engines["default"].count(
                    "reference") - engines["default"].count("eigen")
                if native != report["xnnpack_operators"]:
                    problems.append(f"default kernels: {native} operators on XNNPACK, "
                                    f"the compiler planned {report['xnnpack_operators']}")
                # Where XNNPACK has no operator (MATMUL of two activations, GELU,
                # LAYER_NORM, whole LSTM and GRU layers), Eigen runs it.
                want_eigen = sum(report["ops_after"].get(op, 0)
                                 for op in ("gelu", "gru", "layer_norm", "lstm", "matmul"))
                if engines["default"].count("eigen") < want_eigen:
                    problems.append(f"default kernels: {engines['default'].count('eigen')} "
                                    f"operators on Eigen, expected {want_eigen} or more")
                if set(engines["reference"]) != {"reference"}:
                    problems.append("reference kernels: not every operator on them")
            for k in kernels:
                for i, n in enumerate(names):
                    got = np.load(os.path.join(out, k, f"{i}.npy"))
                    if mode == "nnapi-int8":
                        why = compare_int8(got, ref[n], MIN_NNAPI_INT8_SQNR_DB)
                    elif mode == "int8":
                        why = compare_int8(got, ref[n])
                    else:
                        why = compare_close(got, ref[n])
                    if isinstance(why, str):
                        problems.append(f"{k} kernels, output {n}: {why}")
                    elif mode in SQNR_MODES:
                        least_db = min(least_db, why)
                    else:
                        worst = max(worst, why)
            verdict = "FAIL" if problems else "PASS"
            detail = "; ".join(problems) or (
                f"SQNR >= {least_db:.1f} dB" if mode in SQNR_MODES
                else f"largest error {worst:.2g} of the tolerance")
        except StepFailed as e:
            verdict, detail = "FAIL", str(e)
        results.append((mode, verdict, detail, time.time() - t0))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kiln", required=True, help="the host's kiln")
    ap.add_argument("--runner", required=True, help="kiln-run-npy for the target")
    ap.add_argument("--emulator", default="", help="command prefix that runs the runner")
    ap.add_argument("--work", required=True, help="a folder for the files made")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--nnapi-library", default="",
                    help="the host NNAPI device for the target (KILN_NNAPI_LIBRARY)")
    a = ap.parse_args()
    a.emulator = shlex.split(a.emulator)
    os.makedirs(a.work, exist_ok=True)
    todo = [m for m in models() if a.filter in m[0]]
    if not todo:
        print("run_e2e: no models", file=sys.stderr)
        return 1
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [(m[0], m[3], pool.submit(check_model, *m, a)) for m in todo]
        for name, modes, f in futures:
            try:
                results = f.result()
            except StepFailed as e:
                results = [(mode, "FAIL", str(e), 0.0) for mode in modes]
            for mode, verdict, detail, secs in results:
                passed += verdict == "PASS"
                failed += verdict != "PASS"
                print(f"{verdict} {name} {mode} ({secs:.1f} s){': ' + detail if detail else ''}",
                      flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
