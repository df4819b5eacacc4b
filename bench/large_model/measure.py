"""Large models: peak resident memory of kiln convert, kiln run (every core,
the XNNPACK path) and ONNX Runtime's session creation + first run, as
ratios of the model's weight bytes, with wall times, in one run on one
machine (issue "Models past 2 GB"). Not part of ctest: it needs several GB
of disk and memory.

  measure.py KILN ORT_DIR WORK_DIR [--gb 2.7] [--quantize fp16,int8]
             [--memory-limit-gb 1.0]

--quantize adds a convert row per mode (int8 calibrates on 8 generated
samples). --memory-limit-gb adds a row for the fp32 convert inside a
memory cgroup of that size (root; cgroup v1 or v2), far below the weights:
the model's weights exceed the memory the converter may use, and the file
it writes must still run and match.

ORT_DIR holds node_modules/onnxruntime-node (bench/compare.sh installs it
with npm --ignore-scripts). Prints one table row per step, and the output
error of each engine against numpy's float64 reference."""
import argparse
import filecmp
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    """Runs cmd under /usr/bin/time: (wall s, peak RSS bytes, stdout)."""
    t0 = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "MAXRSS %M"] + cmd,
                       capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr))
    rss = int(re.search(r"MAXRSS (\d+)", p.stderr).group(1)) * 1024
    return wall, rss, p.stdout


def in_memory_cgroup(cmd, limit_bytes):
    """cmd run inside a fresh memory cgroup limited to limit_bytes (page
    cache included, no swap), and the cgroup's folder."""
    name = "kiln-bench-%d" % os.getpid()
    v2 = "/sys/fs/cgroup/cgroup.controllers"
    if os.path.exists(v2) and "memory" in open(v2).read():
        path = os.path.join("/sys/fs/cgroup", name)
        os.makedirs(path, exist_ok=True)
        open(os.path.join(path, "memory.max"), "w").write(str(limit_bytes))
        if os.path.exists(os.path.join(path, "memory.swap.max")):
            open(os.path.join(path, "memory.swap.max"), "w").write("0")
    elif os.path.isdir("/sys/fs/cgroup/memory"):
        path = os.path.join("/sys/fs/cgroup/memory", name)
        os.makedirs(path, exist_ok=True)
        open(os.path.join(path, "memory.limit_in_bytes"), "w").write(
            str(limit_bytes))
    else:
        sys.exit("--memory-limit-gb needs a memory cgroup (run as root)")
    procs = os.path.join(path, "cgroup.procs")
    return ["sh", "-c", 'echo $$ > %s && exec "$@"' % procs, "sh"] + cmd, path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("ort_dir")
    ap.add_argument("work")
    ap.add_argument("--gb", type=float, default=2.7)
    ap.add_argument("--quantize", default="",
                    help="comma-separated extra convert modes: fp16,int8")
    ap.add_argument("--memory-limit-gb", type=float, default=0)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    gen = subprocess.run([sys.executable, os.path.join(HERE, "make_mlp.py"),
                          a.work, "--gb", str(a.gb), "--calib", "8"],
                         capture_output=True, text=True, check=True)
    weights = int(re.search(r"(\d+) weight bytes", gen.stdout).group(1))
    onnx = os.path.join(a.work, "mlp.onnx")
    kiln_file = os.path.join(a.work, "mlp.kiln")
    x = np.load(os.path.join(a.work, "mlp.input.npy"))
    ref = np.load(os.path.join(a.work, "mlp.ref.npy"))
    rows = []
    wall, rss, _ = timed([a.kiln, "convert", onnx, "-o", kiln_file])
    rows.append(("kiln convert", wall, rss, None))
    for mode in filter(None, a.quantize.split(",")):
        cmd = [a.kiln, "convert", onnx, "-o",
               os.path.join(a.work, "mlp.%s.kiln" % mode), "--quantize", mode]
        if mode == "int8":
            cmd += ["--calib", os.path.join(a.work, "calib")]
        wall, rss, _ = timed(cmd)
        rows.append(("kiln convert --quantize %s" % mode, wall, rss, None))
    if a.memory_limit_gb:
        limit = int(a.memory_limit_gb * 1e9)
        limited = os.path.join(a.work, "mlp.limited.kiln")
        # The model's pages leave the page cache first, so that reading
        # them is charged to the cgroup, not to whoever wrote them.
        for name in (onnx, onnx + ".data"):
            fd = os.open(name, os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        cmd, cgroup = in_memory_cgroup(
            [a.kiln, "convert", onnx, "-o", limited], limit)
        try:
            wall, rss, _ = timed(cmd)
        finally:
            os.rmdir(cgroup)
        same = filecmp.cmp(limited, kiln_file, shallow=False)
        print("convert in %.1f GB of memory: %s the unlimited convert's file"
              % (a.memory_limit_gb, "byte-identical to" if same else
                 "DIFFERENT from"))
        out = os.path.join(a.work, "kiln-limited-out.npz")
        timed([a.kiln, "run", limited, "--input",
               "x=" + os.path.join(a.work, "mlp.input.npy"), "-o", out])
        y = np.load(out)["y"]
        rows.append(("kiln convert in a %.1f GB memory cgroup, then run"
                     % a.memory_limit_gb, wall, rss,
                     float(np.abs(y - ref).max() / np.abs(ref).max())))
    out = os.path.join(a.work, "kiln-out.npz")
    wall, rss, _ = timed([a.kiln, "run", kiln_file, "--input",
                          "x=" + os.path.join(a.work, "mlp.input.npy"),
                          "-o", out])
    y = np.load(out)["y"]
    rows.append(("kiln run (every core, XNNPACK)", wall, rss,
                 float(np.abs(y - ref).max() / np.abs(ref).max())))
    raw_in = os.path.join(a.work, "x.bin")
    raw_out = os.path.join(a.work, "ort-out.bin")
    x.astype("<f4").tofile(raw_in)
    wall, rss, text = timed(["node", os.path.join(HERE, "ort_first_run.js"),
                             a.ort_dir, onnx, "x", "x".join(map(str, x.shape)),
                             raw_in, raw_out])
    y = np.fromfile(raw_out, dtype="<f4").reshape(ref.shape)
    rows.append(("ONNX Runtime: create + first run", wall, rss,
                 float(np.abs(y - ref).max() / np.abs(ref).max())))
    ort_create_ms, ort_run_ms = map(float, text.split()[-2:])
    # Load time alone: kiln's load + session creation (where XNNPACK packs,
    # on the session's threads) at every core, against ORT's session
    # creation from the same run above.
    bench = subprocess.run([a.kiln, "bench", kiln_file, "--threads", "0",
                            "--runs", "1", "--warmup", "0", "--json"],
                           capture_output=True, text=True, check=True)
    b = json.loads(bench.stdout)
    load_rows = [("kiln: load + session (every core)", b["load_ms"],
                  b["session_ms"], b["first_run_ms"]),
                 ("ONNX Runtime: session creation", None, ort_create_ms,
                  ort_run_ms)]
    print("weights: %d bytes (%.2f GB)" % (weights, weights / 1e9))
    print("| | wall | peak RSS | RSS / weights | output vs float64 |")
    print("|---|---|---|---|---|")
    for name, wall, rss, err in rows:
        print("| %s | %.1f s | %.2f GB | %.2f | %s |" %
              (name, wall, rss / 1e9, rss / weights,
               "" if err is None else "%.1e" % err))
    print()
    print("| | load | session | first run |")
    print("|---|---|---|---|")
    for name, load, session, first in load_rows:
        print("| %s | %s | %.0f ms | %.0f ms |" %
              (name, "" if load is None else "%.0f ms" % load, session,
               first))


if __name__ == "__main__":
    main()
