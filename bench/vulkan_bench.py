#!/usr/bin/env python3
"""kiln's Vulkan executor on full-size models, with kiln's CPU executor for scale.

    /usr/bin/python3 bench/vulkan_bench.py KILN WORKDIR [--models a,b]
                     [--runs N] [--cpu-runs N] [--sessions S] [--timeout S]

Reuses the .onnx files bench/vulkan_full_models.py exports into WORKDIR
(exporting any that are missing the same way). Per model, on whatever Vulkan
device the loader picks first (on the EPYC VM: Mesa's lavapipe, a software
rasterizer, so these are CPU times in a GPU API's clothes):

  session   `kiln bench --sessions S --pipeline-cache DIR` with DIR emptied
            first: the first load + session creation (cold: nothing in the
            pipeline cache, pipelines compiled, weights uploaded) and the
            median of the others (warm: the pipeline cache file the first
            session wrote is read back, driver caches warm). What a warm
            cache saves depends on what the driver puts in it
  first     the first run (`kiln bench --json` first_run_ms)
  median    median of N runs (--runs, default 3, no warm-up runs: one run of
            a large model takes seconds on lavapipe)
  dispatch  dispatches recorded per run (`kiln inspect --json`, the vulkan
            section's dispatch_count) against the operators left after fusion
  overhead  `kiln bench --profile`: the executor's time per run beyond the
            sum of the dispatches' GPU timestamps (median over N runs), in ms
            and as a share of that sum
  cpu       the same .onnx through `kiln convert` (CPU target) and
            `kiln bench --threads 2` (both cores; oneDNN then stays out, it
            runs single-threaded sessions only), median of --cpu-runs;
            Vulkan / CPU median latency

Every command runs under --timeout (default 1200 s); a model that runs past it
is reported as such. The report opens with the CPU model and its vector ISA
(lscpu), the Vulkan device and the Mesa version (vulkaninfo --summary). No
peer is run: onnxruntime-node's WebGPU execution provider refuses Mesa 22.3's
lavapipe, and no other Vulkan inference engine is installed. Rows are appended
to WORKDIR/vulkan_bench.md as they finish (and saved as WORKDIR/NAME.bench.json;
--table reprints the table from those); the whole table is printed at the end.
"""
import argparse
import json
import os
import shutil
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vulkan_full_models as full  # noqa: E402


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine():
    ls = sh(["lscpu"])
    model = re.search(r"Model name:\s*(.*)", ls)
    fam = re.search(r"CPU family:\s*(.*)", ls)
    mod = re.search(r"^Model:\s*(.*)", ls, re.M)
    cores = re.search(r"^CPU\(s\):\s*(.*)", ls, re.M)
    flags = (re.search(r"Flags:\s*(.*)", ls) or [None, ""])[1].split()
    isa = [f for f in flags if f in ("avx2", "fma") or f.startswith("avx512") or
           f.startswith("amx")]
    vk = sh(["vulkaninfo", "--summary"])
    dev = re.search(r"deviceName\s*=\s*(.*)", vk)
    drv = re.search(r"driverInfo\s*=\s*(.*)", vk)
    api = re.search(r"apiVersion\s*=\s*(.*)", vk)
    load = open("/proc/loadavg").read().split()[:3]
    return ("Load average when it started: %s (a shared machine). "
            "CPU: %s (family %s, model %s), %s CPUs; ISA: %s; AVX-512: %s. "
            "Vulkan device: %s, %s, Vulkan %s." % (" ".join(load),
                model[1] if model else "?", fam[1] if fam else "?", mod[1] if mod else "?",
                cores[1] if cores else "?", ", ".join(isa) or "none of avx2/avx512",
                "none" if not any(f.startswith("avx512") for f in flags) else "yes",
                dev[1].strip() if dev else "? (vulkaninfo not installed)",
                drv[1].strip() if drv else "?", api[1].strip() if api else "?"))


def bench(kiln, path, args, timeout):
    out, err, _ = full.run([kiln, "bench", path, "--json"] + args, timeout)
    if err:
        return None, err.splitlines()[0]
    return json.loads(out), None


HEADER = ("| model | operators | dispatches | Vulkan session cold / warm ms | "
          "Vulkan first run ms | Vulkan median ms | executor overhead ms (% of dispatch sum) | "
          "CPU (2 threads) session ms | CPU median ms | Vulkan / CPU median |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n")


def one(kiln, workdir, name, a):
    base = os.path.join(workdir, name)
    r = {"model": name}
    vk, cpu = base + ".bench.vulkan.kiln", base + ".bench.cpu.kiln"
    for target, path in (("vulkan", vk), ("cpu", cpu)):
        cmd = [kiln, "convert", base + ".onnx", "-o", path]
        if target == "vulkan":
            cmd[2:2] = ["--target", "vulkan"]
        _, err, dt = full.run(cmd, a.timeout)
        r[target + "_convert_s"] = dt
        if err:
            r[target + "_error"] = "convert: " + err.splitlines()[0]
    if "vulkan_error" not in r:
        out, _, _ = full.run([kiln, "inspect", "--json", vk], a.timeout)
        if out:
            j = json.loads(out)
            r["dispatches"] = full.dispatches(j)
            r["operators"] = full.operators(j)
        cache = os.path.join(workdir, "pipeline-cache", name)
        shutil.rmtree(cache, ignore_errors=True)
        j, err = bench(kiln, vk, ["--runs", str(a.runs), "--warmup", "0",
                                  "--sessions", str(a.sessions), "--profile",
                                  "--pipeline-cache", cache], a.timeout)
        if err:
            r["vulkan_error"] = "bench: " + err
        else:
            r["vk"] = {k: j.get(k) for k in (
                "load_ms", "session_ms", "load_total_ms", "warm_load_total_ms", "first_run_ms",
                "median_ms", "p90_ms", "min_ms", "operator_sum_ms", "overhead_ms",
                "overhead_fraction", "operators", "runs", "pipeline_cache_bytes")}
    if "cpu_error" not in r:
        j, err = bench(kiln, cpu, ["--threads", "2", "--runs", str(a.cpu_runs),
                                   "--sessions", str(a.sessions)], a.timeout)
        if err:
            r["cpu_error"] = "bench: " + err
        else:
            r["cpu"] = {k: j.get(k) for k in (
                "load_total_ms", "warm_load_total_ms", "first_run_ms", "median_ms",
                "operators", "runs")}
    return r


def fmt(r):
    vk, cpu = r.get("vk"), r.get("cpu")
    f = lambda d, k, p="%.1f": (p % d[k]) if d and d.get(k) is not None else "-"
    sess = ("%s / %s" % (f(vk, "load_total_ms", "%.0f"), f(vk, "warm_load_total_ms", "%.0f"))
            if vk else "-")
    ovh = ("%s (%.1f%%)" % (f(vk, "overhead_ms"), 100 * vk["overhead_fraction"])
           if vk and vk.get("overhead_fraction") is not None else "-")
    ratio = ("%.1f" % (vk["median_ms"] / cpu["median_ms"])) if vk and cpu else "-"
    cells = [r["model"], f(r, "operators", "%d"), f(r, "dispatches", "%d"), sess,
             f(vk, "first_run_ms", "%.0f"), f(vk, "median_ms", "%.0f"), ovh,
             f(cpu, "load_total_ms", "%.0f"), f(cpu, "median_ms"), ratio]
    if not vk and r.get("vulkan_error"):
        cells[3] = "FAIL: " + r["vulkan_error"].replace("|", "\\|")
    if not cpu and r.get("cpu_error"):
        cells[7] = "FAIL: " + r["cpu_error"].replace("|", "\\|")
    return "| " + " | ".join(cells) + " |\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("workdir")
    ap.add_argument("--models", default=",".join(full.SIZES))
    ap.add_argument("--runs", type=int, default=3, help="timed Vulkan runs (default 3)")
    ap.add_argument("--cpu-runs", type=int, default=20, help="timed CPU runs (default 20)")
    ap.add_argument("--sessions", type=int, default=3,
                    help="loads + sessions per process: 1 cold, the rest warm (default 3)")
    ap.add_argument("--timeout", type=int, default=1200, help="per command, seconds")
    ap.add_argument("--table", action="store_true",
                    help="only print the table from the results saved in WORKDIR")
    a = ap.parse_args()
    names = a.models.split(",")
    for n in names:
        if n not in full.SIZES:
            ap.error("unknown model %s (known: %s)" % (n, ",".join(full.SIZES)))
    names.sort(key=list(full.SIZES).index)
    if a.table:
        rows = [json.load(open(os.path.join(a.workdir, n + ".bench.json"))) for n in names
                if os.path.exists(os.path.join(a.workdir, n + ".bench.json"))]
        sys.stdout.write(HEADER + "".join(fmt(r) for r in rows))
        return
    os.makedirs(a.workdir, exist_ok=True)
    head = machine() + (" Vulkan: %d timed runs after the first, no warm-up; CPU executor "
                        "`kiln bench --threads 2`, %d runs. No peer: onnxruntime-node's "
                        "WebGPU EP refuses Mesa 22.3's lavapipe.\n\n" % (a.runs, a.cpu_runs))
    md = os.path.join(a.workdir, "vulkan_bench.md")
    with open(md, "w") as f:
        f.write(head + HEADER)
    rows = []
    for n in names:
        full.export(n, a.workdir)
        r = one(a.kiln, a.workdir, n, a)
        rows.append(r)
        with open(md, "a") as f:
            f.write(fmt(r))
        with open(os.path.join(a.workdir, n + ".bench.json"), "w") as f:
            json.dump(r, f, indent=1)
        print(fmt(r), end="", file=sys.stderr)
    sys.stdout.write(head + HEADER + "".join(fmt(r) for r in rows))
    for r in rows:
        for k in ("vulkan_error", "cpu_error"):
            if r.get(k):
                print("\n%s (%s): %s" % (r["model"], k.split("_")[0], r[k]))


if __name__ == "__main__":
    main()
