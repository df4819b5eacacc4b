#!/usr/bin/env python3
"""kiln against ONNX Runtime and PyTorch Mobile, on one machine, in one run.

    /usr/bin/python3 bench/compare.py KILN ORT_DIR WORKDIR [--models a,b]
                     [--runs N] [--rounds R]

For MobileNetV2, ResNet-18 and ResNet-50 (torchvision architectures, seeded
random weights with BatchNorm statistics taken from random images, nothing
downloaded; 1x3x224x224) and a single 3x3 64->64
convolution at 56x56 (the kernel ceiling), at 1 thread:

  conversion  `kiln convert` (a process: parse ONNX, -O2, lower, write)
              vs torch.utils.mobile_optimizer.optimize_for_mobile on the
              scripted module plus saving it for the lite interpreter
  load        kiln: map + verify + session creation (XNNPACK packs weights,
              oneDNN generates its kernels and reorders weights)
              vs ONNX Runtime session creation (onnxruntime-node in ORT_DIR,
              installed with `npm install onnxruntime-node --ignore-scripts`),
              each measured the same two ways: cold, the first in a fresh
              process (an app starting), and warm, the median of the 2nd and
              3rd in that process (page cache, allocators and kernel caches
              warm; oneDNN reuses the code it generated)
  latency     median of N runs: kiln bench vs ONNX Runtime vs the lite
              interpreter (_load_for_lite_interpreter); kiln runs the dense
              convolutions on oneDNN where its runtime has it (x86) and the
              rest on XNNPACK, and is also timed XNNPACK-only
              (`kiln bench --no-onednn`, what an ARM phone build runs),
              and with `--huge-pages` (the weights oneDNN converts on
              transparent huge pages: slower sessions where fresh huge pages
              fault slowly, as in this virtual machine, faster runs)
  native      the same model converted with `kiln convert --prepack native`
              (the weights oneDNN runs stored in the layout its kernels read
              on this CPU, used in place): conversion, cold and warm load,
              first run and latency against the same peers

Quantization (--quant-models, default MobileNetV2 and ResNet-18): each is
also converted with `kiln convert --quantize fp16|int8-dynamic|int8` (int8
calibrated on 8 seeded N(0,1) images; the weights are random too), and the
int8 .kiln is benchmarked in the same rounds as the fp32 one: int8 / fp32
latency and file size ratios, with the int8 outputs' SQNR against fp32 on
4 held-out N(0,1) images and how many of them keep the fp32 top-1 class.

Engines are measured in alternating rounds (R of them) and the medians over
rounds are compared, since these machines are shared and noisy. The
conversions come first, in a phase of their own: one round per order of the
three converters (6), so each follows each of the others, and comes first,
equally often. A step run right after heavy work pays for the memory that
work left cold (this machine hands idle memory back to its host): with R
rotations of one order, the native conversion followed optimize_for_mobile
in two rounds of three and the portable one in none. Every file a
timed step reads (the ONNX model, the .kiln, the .ptl) is read once just
before it, so both sides start from the page cache: the machine pages out
files idle for a minute, and optimize_for_mobile reads no file at all.
int8 correctness: the trained shapes CNN (examples/shapes, int8 calibrated
on its calibration split, 40 test images) and each quantized model (4
held-out images): SQNR of the int8 .kiln's outputs, on the default kernels
and on XNNPACK alone, against the same QDQ graph run by kiln's reference
interpreter (`kiln opt --quantize int8 -o q.kir`, `kiln run q.kir`).
--int8-baseline KILN adds another kiln build's figures beside them (e.g. one
built before a change to the int8 kernels).

The report starts with the CPU: its model and the vector ISA it has (AVX2,
AVX-512, AVX-512 VNNI, AMX, NEON), and ONEDNN_MAX_CPU_ISA where it caps
oneDNN (and kiln's AVX-512 kernel). ONNX Runtime and PyTorch pick their own
kernels: the cap does not apply to them.

kiln's and ORT's outputs on the same input are compared as a sanity check, and
`kiln bench --profile` gives kiln's executor overhead over the sum of its
operators. Prints a table of ratios (kiln / peer: below 1.0 means kiln is
faster or smaller).
"""
import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import torch
import torchvision
from torch.utils.mobile_optimizer import optimize_for_mobile
from torch.jit.mobile import _load_for_lite_interpreter

HERE = os.path.dirname(os.path.abspath(__file__))


class Conv3x3(torch.nn.Module):
    """The kernel-ceiling layer: 3x3, 64 -> 64 channels, padding 1."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 64, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


MODELS = {
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
    "conv3x3_64_56": (Conv3x3, (1, 64, 56, 56)),
}
CONV_FLOPS = 2 * 56 * 56 * 64 * 64 * 9


def ramp(shape):
    n = int(np.prod(shape))
    return ((np.arange(n) % 17) / 16.0 - 0.5).astype(np.float32).reshape(shape)


# Bump when the models change: their ONNX files in WORKDIR are then exported
# again.
MODEL_VERSION = "2: BatchNorm statistics from 32 N(0,1) images"


def settle_batchnorm(model, shape):
    """Sets every BatchNorm's running statistics to those of 32 seeded
    N(0, 1) images (train mode, cumulative average). Activations then keep a
    trained network's scale through the depth of a randomly initialized one;
    with the default statistics MobileNetV2's outputs shrink to ~1e-9 and an
    int8 comparison on it means nothing."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    gen = torch.Generator().manual_seed(1)
    model.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn((8,) + tuple(shape[1:]), generator=gen))
    model.eval()


def prepare(name, workdir):
    """Builds the model, exports ONNX and keeps the scripted module."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    model = make()
    settle_batchnorm(model, shape)
    model.eval()
    onnx_path = os.path.join(workdir, name + ".onnx")
    stamp = onnx_path + ".version"
    current = os.path.exists(stamp) and open(stamp).read() == MODEL_VERSION
    if not current or not os.path.exists(onnx_path):
        torch.onnx.export(model, torch.zeros(shape), onnx_path, opset_version=13,
                          input_names=["input"], output_names=["output"])
        with open(stamp, "w") as f:
            f.write(MODEL_VERSION)
    return model, shape, onnx_path


def in_page_cache(path):
    """Reads path once, so that the timed step that reads it next starts from
    the page cache, as it would right after the file was written. Shared
    machines reclaim idle memory proactively (this one pages out what has
    been idle for a minute, file pages included): a file half on disk would
    time the disk, not the tool."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def time_kiln_convert(kiln, onnx_path, out, *extra):
    in_page_cache(onnx_path)
    t0 = time.perf_counter()
    subprocess.run([kiln, "convert", onnx_path, "-o", out, *extra], check=True,
                   stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1e3


def time_optimize_for_mobile(model, out):
    scripted = torch.jit.script(model)
    t0 = time.perf_counter()
    optimized = optimize_for_mobile(scripted)
    optimized._save_for_lite_interpreter(out)
    return (time.perf_counter() - t0) * 1e3


QUANT_MODES = ("fp16", "int8-dynamic", "int8")


def convert_quantized(kiln, onnx_path, workdir, name):
    """fp16, int8-dynamic and int8 .kiln files of a model; returns paths."""
    calib = os.path.join(workdir, "calib_%s.npy" % name)
    if not os.path.exists(calib):
        shape = MODELS[name][1]
        rng = np.random.default_rng(0)
        np.save(calib, rng.standard_normal((8,) + tuple(shape[1:])).astype(np.float32))
    paths = {}
    for mode in QUANT_MODES:
        out = os.path.join(workdir, "%s.%s.kiln" % (name, mode))
        cmd = [kiln, "convert", onnx_path, "-o", out, "--quantize", mode]
        if mode == "int8":
            cmd += ["--calib", calib]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        paths[mode] = out
    return paths


def sqnr_db(got, ref):
    noise = float(((got.astype(np.float64) - ref) ** 2).sum())
    return 200.0 if noise == 0 else 10 * np.log10(float((ref.astype(np.float64) ** 2).sum()) / noise)


def held_out_images(shape, count=4):
    """N(0, 1) images like the calibration set's, from another seed."""
    rng = np.random.default_rng(2)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def kiln_output(kiln, kiln_path, shape, workdir, x=None, *flags):
    """kiln run's output on x (default: the ramp input), at 1 thread."""
    x_path = os.path.join(workdir, "input_%s.npy" % "x".join(map(str, shape)))
    np.save(x_path, ramp(shape) if x is None else x)
    out = os.path.join(workdir, "kiln_q_out.npz")
    subprocess.run([kiln, "run", kiln_path, "--input", x_path, "-o", out,
                    "--threads", "1", *flags], check=True,
                   stdout=subprocess.DEVNULL)
    z = np.load(out)
    return z[z.files[0]]


def kiln_bench(kiln, path, runs, profile=False, onednn=True, sessions=1,
               huge_pages=False):
    cmd = [kiln, "bench", path, "--threads", "1", "--runs", str(runs), "--json",
           "--sessions", str(sessions)]
    if profile:
        cmd.append("--profile")
    if not onednn:
        cmd.append("--no-onednn")
    if huge_pages:
        cmd.append("--huge-pages")
    in_page_cache(path)
    return json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                     text=True).stdout)


def ort_bench(ort_dir, onnx_path, shape, runs, sessions=3):
    in_page_cache(onnx_path)
    out = subprocess.run(
        ["node", os.path.join(HERE, "ort_bench.js"), ort_dir, onnx_path, "input",
         "x".join(map(str, shape)), str(runs), str(sessions)],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def lite_bench(ptl_path, shape, runs):
    torch.set_num_threads(1)
    in_page_cache(ptl_path)
    t0 = time.perf_counter()
    m = _load_for_lite_interpreter(ptl_path)
    load_ms = (time.perf_counter() - t0) * 1e3
    x = torch.from_numpy(ramp(shape))
    with torch.no_grad():
        m(x)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            m(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return load_ms, statistics.median(times)


def kiln_output_head(kiln, kiln_path, shape, workdir):
    x_path = os.path.join(workdir, "ramp_%s.npy" % "x".join(map(str, shape)))
    np.save(x_path, ramp(shape))
    out = os.path.join(workdir, "kiln_out.npz")
    subprocess.run([kiln, "run", kiln_path, "--input", x_path, "-o", out,
                    "--threads", "1"], check=True, stdout=subprocess.DEVNULL)
    z = np.load(out)
    return z[z.files[0]].ravel()[:10]


def cpu_description():
    """The CPU's model name and the vector ISA kiln's kernels can use."""
    model, flags, ids = "unknown CPU", set(), {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown CPU":
                    model = value.strip()
                elif key in ("cpu family", "model") and key not in ids:
                    ids[key] = value.strip()
                elif key in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    isa = [name for flag, name in (("avx2", "AVX2"), ("fma", "FMA"),
                                   ("avx512f", "AVX-512"),
                                   ("avx512_vnni", "AVX-512 VNNI"),
                                   ("avx_vnni", "AVX-VNNI"),
                                   ("amx_int8", "AMX"), ("asimd", "NEON"),
                                   ("asimddp", "NEON dot product"))
           if flag in flags]
    if ids:  # a virtual machine may name only the vendor's line
        model += " (family %s, model %s)" % (ids.get("cpu family", "?"),
                                              ids.get("model", "?"))
    cap = os.environ.get("ONEDNN_MAX_CPU_ISA")
    return "%s (%s)%s" % (model, ", ".join(isa) or "no vector ISA found",
                          "; ONEDNN_MAX_CPU_ISA=%s caps oneDNN and kiln's "
                          "AVX-512 kernel, not ORT or PyTorch" % cap
                          if cap else "")


def int8_vs_qdq(kiln, onnx_path, calib, inputs, workdir, tag, *shape_flags):
    """SQNR (dB) of the int8 .kiln's outputs against its QDQ graph run by the
    reference interpreter: (default kernels, XNNPACK only)."""
    kir = os.path.join(workdir, tag + ".qdq.kir")
    kfile = os.path.join(workdir, tag + ".qdq.kiln")
    common = [onnx_path, *shape_flags, "--quantize", "int8", "--calib", calib]
    subprocess.run([kiln, "opt", *common, "-o", kir], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([kiln, "convert", *common, "-o", kfile], check=True,
                   stdout=subprocess.DEVNULL)
    def outputs(path, *flags):
        return np.stack([kiln_output(kiln, path, x.shape, workdir, x, *flags)
                         for x in inputs])
    ref = outputs(kir)
    default = outputs(kfile)
    xnn = outputs(kfile, "--no-onednn")
    return sqnr_db(default, ref), sqnr_db(xnn, ref)


def shapes_int8_case(workdir):
    """The trained shapes CNN, its calibration split and 40 test images."""
    sys.path.insert(0, os.path.join(HERE, "..", "examples", "shapes"))
    from shapes_data import make_split
    calib = os.path.join(workdir, "shapes_calib.npy")
    np.save(calib, make_split("calib")[0])
    test = make_split("test")[0][:40]
    return (os.path.join(HERE, "..", "examples", "shapes", "shapes_cnn.onnx"),
            calib, [t[None] for t in test], ["--input-shape", "image=1x1x16x16"])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("ort_dir", help="folder holding node_modules/onnxruntime-node")
    ap.add_argument("workdir")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quant-models", default="mobilenet_v2,resnet18",
                    help="models also converted to fp16/int8-dynamic/int8 "
                         "('' for none)")
    ap.add_argument("--int8-baseline", metavar="KILN",
                    help="another kiln build whose int8 SQNR against the QDQ "
                         "graph is reported beside this one's")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    torch.set_num_threads(1)
    print("CPU: " + cpu_description(), flush=True)
    kilns = [("kiln", args.kiln)]
    if args.int8_baseline:
        kilns.append(("baseline", args.int8_baseline))
    int8_rows = []
    shapes_onnx, shapes_calib, shapes_test, shapes_flags = shapes_int8_case(
        args.workdir)
    for label, binary in kilns:
        int8_rows.append(("shapes_cnn (trained, 40 test images)", label,
                          *int8_vs_qdq(binary, shapes_onnx, shapes_calib,
                                       shapes_test, args.workdir,
                                       "shapes_" + label, *shapes_flags)))

    rows, quant_rows = [], []
    quant_models = [m for m in args.quant_models.split(",") if m]
    for name in args.models.split(","):
        model, shape, onnx_path = prepare(name, args.workdir)
        quant = name in quant_models
        kiln_path = os.path.join(args.workdir, name + ".kiln")
        ptl_path = os.path.join(args.workdir, name + ".ptl")
        m = {k: [] for k in ["kiln_convert", "ofm", "kiln_load", "ort_session",
                             "kiln_load_warm", "ort_session_warm",
                             "lite_load", "kiln_lat", "ort_lat", "lite_lat",
                             "kiln_first", "ort_first", "int8_lat",
                             "kiln_xnn_load", "kiln_xnn_lat", "huge_load",
                             "huge_load_warm", "huge_lat",
                             "native_convert", "native_load",
                             "native_load_warm", "native_lat", "native_first"]}
        native_path = os.path.join(args.workdir, name + ".native.kiln")
        # Conversions first, in a phase of their own, in every order: a step
        # right after heavy work pays for touching memory that work left
        # cold, and no converter should follow it more often than another.
        converters = [
            ("kiln_convert", lambda: time_kiln_convert(args.kiln, onnx_path,
                                                       kiln_path)),
            ("ofm", lambda: time_optimize_for_mobile(model, ptl_path)),
            ("native_convert", lambda: time_kiln_convert(
                args.kiln, onnx_path, native_path, "--prepack", "native"))]
        for order in itertools.permutations(converters):
            for key, convert in order:
                m[key].append(convert())
        for _ in range(args.rounds):
            if quant:
                qpaths = convert_quantized(args.kiln, onnx_path, args.workdir, name)
                m["int8_lat"].append(kiln_bench(args.kiln, qpaths["int8"],
                                                args.runs)["median_ms"])
            k = kiln_bench(args.kiln, kiln_path, args.runs, sessions=3)
            m["kiln_load"].append(k["load_total_ms"])
            m["kiln_load_warm"].append(k["warm_load_total_ms"])
            m["kiln_lat"].append(k["median_ms"])
            m["kiln_first"].append(k["first_run_ms"])
            kn = kiln_bench(args.kiln, native_path, args.runs, sessions=3)
            m["native_load"].append(kn["load_total_ms"])
            m["native_load_warm"].append(kn["warm_load_total_ms"])
            m["native_lat"].append(kn["median_ms"])
            m["native_first"].append(kn["first_run_ms"])
            kh = kiln_bench(args.kiln, kiln_path, args.runs, sessions=3,
                            huge_pages=True)
            m["huge_load"].append(kh["load_total_ms"])
            m["huge_load_warm"].append(kh["warm_load_total_ms"])
            m["huge_lat"].append(kh["median_ms"])
            kx = kiln_bench(args.kiln, kiln_path, args.runs, onednn=False)
            m["kiln_xnn_load"].append(kx["load_total_ms"])
            m["kiln_xnn_lat"].append(kx["median_ms"])
            o = ort_bench(args.ort_dir, onnx_path, shape, args.runs)
            m["ort_session"].append(o["session_ms"][0])
            m["ort_session_warm"].append(statistics.median(o["session_ms"][1:]))
            m["ort_lat"].append(statistics.median(o["run_ms"]))
            m["ort_first"].append(o["first_run_ms"])
            lite_load, lite_lat = lite_bench(ptl_path, shape, args.runs)
            m["lite_load"].append(lite_load)
            m["lite_lat"].append(lite_lat)
        med = {k: statistics.median(v) for k, v in m.items() if v}
        if quant:
            sizes = {q: os.path.getsize(p) for q, p in qpaths.items()}
            sizes["fp32"] = os.path.getsize(kiln_path)
            images = held_out_images(shape)
            fp32_out = np.stack([kiln_output(args.kiln, kiln_path, shape,
                                             args.workdir, x) for x in images])
            int8_out = np.stack([kiln_output(args.kiln, qpaths["int8"], shape,
                                             args.workdir, x) for x in images])
            same = sum(int(a.argmax() == b.argmax())
                       for a, b in zip(int8_out, fp32_out))
            quant_rows.append((name, med, sizes, sqnr_db(int8_out, fp32_out),
                               "%d/%d" % (same, len(images))))
            calib = os.path.join(args.workdir, "calib_%s.npy" % name)
            for label, binary in kilns:
                int8_rows.append(("%s (4 held-out images)" % name, label,
                                  *int8_vs_qdq(binary, onnx_path, calib, images,
                                               args.workdir,
                                               name + "_" + label)))
        profile = kiln_bench(args.kiln, kiln_path, args.runs, profile=True)
        head = kiln_output_head(args.kiln, kiln_path, shape, args.workdir)
        ort_head = np.array(o["output_head"], dtype=np.float32)
        err = float(np.max(np.abs(head - ort_head)) / max(1e-12, np.max(np.abs(ort_head))))
        native_head = kiln_output_head(args.kiln, native_path, shape, args.workdir)
        native_err = float(np.max(np.abs(native_head - ort_head)) /
                           max(1e-12, np.max(np.abs(ort_head))))
        rows.append((name, med, profile, max(err, native_err)))

    print("\nkiln vs ONNX Runtime %s (onnxruntime-node) and PyTorch %s lite "
          "interpreter, 1 thread, median of %d rounds x %d runs (conversions: "
          "median of 6 rounds, one per order of the converters)\n"
          % (json.load(open(os.path.join(args.ort_dir, "node_modules",
                                         "onnxruntime-node", "package.json")))["version"],
             torch.__version__, args.rounds, args.runs))
    hdr = ("model", "convert ms", "ofm ms", "ratio", "load ms", "ORT sess ms",
           "ratio", "kiln ms", "ORT ms", "ratio", "lite ms", "ratio",
           "XNN-only ms", "ratio", "load")
    fmt = "%-14s %10s %9s %6s %8s %11s %6s %8s %8s %6s %8s %6s %11s %6s %6s"
    print(fmt % hdr)
    for name, d, _, _ in rows:
        print(fmt % (name, "%.1f" % d["kiln_convert"], "%.1f" % d["ofm"],
                     "%.2f" % (d["kiln_convert"] / d["ofm"]),
                     "%.2f" % d["kiln_load"], "%.2f" % d["ort_session"],
                     "%.3f" % (d["kiln_load"] / d["ort_session"]),
                     "%.2f" % d["kiln_lat"], "%.2f" % d["ort_lat"],
                     "%.2f" % (d["kiln_lat"] / d["ort_lat"]),
                     "%.2f" % d["lite_lat"],
                     "%.2f" % (d["kiln_lat"] / d["lite_lat"]),
                     "%.2f" % d["kiln_xnn_lat"],
                     "%.2f" % (d["kiln_xnn_lat"] / d["ort_lat"]),
                     "%.3f" % (d["kiln_xnn_load"] / d["ort_session"])))
    print("(ratio = kiln / peer; load: the first load + session of a fresh "
          "process on both sides; XNN-only: kiln with --no-onednn, against "
          "ORT's latency and session creation)")
    print("\nload, warm on both sides (median of the 2nd and 3rd load + "
          "session in one process):")
    for name, d, _, _ in rows:
        print("  %-14s kiln %8.2f ms, ORT %8.2f ms, ratio %.3f"
              % (name, d["kiln_load_warm"], d["ort_session_warm"],
                 d["kiln_load_warm"] / d["ort_session_warm"]))
    print("\nkiln bench --huge-pages (the weights oneDNN converts on "
          "transparent huge pages), against the same peers:")
    for name, d, _, _ in rows:
        print("  %-14s load cold %8.2f ms (ratio %.3f), warm %8.2f ms (ratio "
              "%.3f); latency %.2f ms (ratio %.2f; huge pages / 4 KiB pages "
              "%.3f)"
              % (name, d["huge_load"], d["huge_load"] / d["ort_session"],
                 d["huge_load_warm"],
                 d["huge_load_warm"] / d["ort_session_warm"], d["huge_lat"],
                 d["huge_lat"] / d["ort_lat"], d["huge_lat"] / d["kiln_lat"]))
    print("\nkiln convert --prepack native (weights in the layouts oneDNN's "
          "kernels read on this CPU, used in place), against the same peers:")
    nfmt = "%-14s %10s %6s %9s %6s %9s %6s %9s %9s %6s %8s %6s"
    print(nfmt % ("model", "convert ms", "ratio", "load ms", "ratio",
                  "warm ms", "ratio", "1st run", "ORT 1st", "ratio", "kiln ms",
                  "ratio"))
    for name, d, _, _ in rows:
        print(nfmt % (name, "%.1f" % d["native_convert"],
                      "%.2f" % (d["native_convert"] / d["ofm"]),
                      "%.2f" % d["native_load"],
                      "%.3f" % (d["native_load"] / d["ort_session"]),
                      "%.2f" % d["native_load_warm"],
                      "%.3f" % (d["native_load_warm"] / d["ort_session_warm"]),
                      "%.2f" % d["native_first"], "%.2f" % d["ort_first"],
                      "%.2f" % (d["native_first"] / d["ort_first"]),
                      "%.2f" % d["native_lat"],
                      "%.2f" % (d["native_lat"] / d["ort_lat"])))
    print("(load: cold, the first load + session of a fresh process, against "
          "ORT's first session; warm: against ORT's warm sessions; 1st run: "
          "the first inference after it, which now reads the weights)")
    if quant_rows:
        print("\nquantized kiln vs fp32 kiln (same rounds, 1 thread; goals: "
              "int8 latency <= 0.6x, int8 file <= 0.27x, fp16 file <= 0.52x)\n")
        qfmt = "%-14s %8s %8s %6s %11s %12s %12s %12s %8s %5s"
        print(qfmt % ("model", "fp32 ms", "int8 ms", "ratio", "fp32 bytes",
                      "fp16 (x)", "int8-dyn (x)", "int8 (x)", "SQNR dB", "top-1"))
        for name, d, s, db, same in quant_rows:
            f = s["fp32"]
            print(qfmt % (name, "%.2f" % d["kiln_lat"], "%.2f" % d["int8_lat"],
                          "%.2f" % (d["int8_lat"] / d["kiln_lat"]), f,
                          "%.3f" % (s["fp16"] / f), "%.3f" % (s["int8-dynamic"] / f),
                          "%.3f" % (s["int8"] / f), "%.1f" % db,
                          same))
    print("\nint8 correctness: SQNR of the int8 .kiln against its QDQ graph "
          "run by kiln's reference interpreter (200 dB: identical)\n")
    ifmt = "%-40s %-9s %15s %15s"
    print(ifmt % ("model", "kiln", "default dB", "XNNPACK dB"))
    for model, label, default_db, xnn_db in int8_rows:
        print(ifmt % (model, label, "%.1f" % default_db, "%.1f" % xnn_db))
    print("\nkiln's overhead: per profiled run, the whole run against the sum "
          "of its operators (median over runs), and against the library "
          "kernels (oneDNN + kiln's panel kernel + XNNPACK) alone (layout "
          "transposes and reshapes "
          "count as overhead there); output check against ORT:")
    for name, d, p, err in rows:
        native = p["onednn_ms"] + p["kiln_ms"] + p["xnnpack_ms"]
        native_overhead = (p["reference_ms"] + p["overhead_ms"]) / native
        line = ("  %-14s oneDNN %.3f ms + kiln %.3f ms + XNNPACK %.3f ms + "
                "reference %.3f ms; "
                "executor %+.3f ms (%+.2f%% of the operators, %+.2f%% over the "
                "library kernels alone); first run kiln %.2f / ORT %.2f ms; "
                "max |kiln-ORT| / max|ORT| = %.1e"
                % (name, p["onednn_ms"], p["kiln_ms"], p["xnnpack_ms"],
                   p["reference_ms"],
                   p["overhead_ms"], 100.0 * p["overhead_fraction"],
                   100.0 * native_overhead, d["kiln_first"], d["ort_first"],
                   err))
        print(line)
        if name == "conv3x3_64_56":
            conv = sum(v for k, v in p["by_kind_ms"].items()
                       if k.startswith("CONV_2D"))
            print("  kernel ceiling: 3x3 64->64 conv at 56x56: kiln's conv "
                  "operator %.2f ms = %.0f GFLOP/s; whole model kiln %.2f ms "
                  "(XNNPACK-only %.2f ms = %.0f GFLOP/s), ORT %.2f ms = %.0f "
                  "GFLOP/s"
                  % (conv, CONV_FLOPS / conv / 1e6 if conv else 0.0,
                     d["kiln_lat"], d["kiln_xnn_lat"],
                     CONV_FLOPS / d["kiln_xnn_lat"] / 1e6, d["ort_lat"],
                     CONV_FLOPS / d["ort_lat"] / 1e6))


if __name__ == "__main__":
    sys.exit(main())
