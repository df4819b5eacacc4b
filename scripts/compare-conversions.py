#!/usr/bin/env python3
"""Converts every model the repository holds with two kiln binaries and
compares the files byte for byte: the check that a refactoring of the
compiler changes no output (docs/testing.md).

    scripts/compare-conversions.py OLD_KILN NEW_KILN [--jobs N]

Models: every tracked .onnx, .pt and .kir (fuzz regressions and malformed
corpora included: their errors must match too). Each is converted for cpu,
vulkan, nnapi, metal and onnx, in fp32 and fp16, and in int8 (on cpu and
nnapi) where an .input.npz beside it calibrates. A pair agrees when both
binaries wrote identical bytes, or both refused with the same exit code and
message. Prints one line per disagreement and a summary; exits 1 if any."""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def models():
    out = subprocess.run(["git", "ls-files", "*.onnx", "*.pt", "*.kir"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if line]


def jobs_for(model):
    base = [["--target", t] for t in ("cpu", "vulkan", "nnapi", "metal", "onnx")]
    jobs = [args for args in base]
    jobs += [args + ["--quantize", "fp16"] for args in base if args[1] != "onnx"]
    calib = model[: -len(".onnx")] + ".input.npz" if model.endswith(".onnx") else None
    if calib and os.path.exists(os.path.join(ROOT, calib)):
        for t in ("cpu", "nnapi"):
            jobs.append(["--target", t, "--quantize", "int8", "--calib",
                         os.path.join(ROOT, calib)])
    if model.endswith("tiny_cnn.kir"):
        jobs = [a + ["--input-shape", "1x3x8x8"] for a in jobs]
    return jobs


def convert(kiln, model, args, out):
    p = subprocess.run([kiln, "convert", os.path.join(ROOT, model), *args, "-o", out],
                       capture_output=True, text=True, cwd=ROOT)
    if p.returncode == 0 and os.path.exists(out):
        with open(out, "rb") as f:
            return ("file", hashlib.sha256(f.read()).hexdigest())
    msg = p.stderr.replace(out, "OUT")
    return ("error", p.returncode, msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kiln-compare-")
    tasks = [(m, args) for m in models() for args in jobs_for(m)]

    def run(i):
        m, args = tasks[i]
        old = convert(a.old, m, args, os.path.join(work, f"{i}.old.kiln"))
        new = convert(a.new, m, args, os.path.join(work, f"{i}.new.kiln"))
        for suffix in ("old", "new"):
            path = os.path.join(work, f"{i}.{suffix}.kiln")
            if os.path.exists(path):
                os.remove(path)
        return m, args, old, new

    same = files = 0
    bad = []
    with ThreadPoolExecutor(a.jobs) as pool:
        for m, args, old, new in pool.map(run, range(len(tasks))):
            if old == new:
                same += 1
                files += old[0] == "file"
            else:
                bad.append((m, args, old, new))
    for m, args, old, new in bad:
        print(f"DIFFERENT {m} {' '.join(args)}: old {old[:2]} new {new[:2]}")
    print(f"{len(tasks)} conversions: {same} agree ({files} identical files, "
          f"{same - files} identical refusals), {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
