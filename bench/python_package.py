"""The Python package's costs: kiln.Session.run against `kiln bench`, and
calibration from a DataLoader's memory.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python_package.py KILN WORKDIR [--runs N] [--rounds R]

1. torchvision's MobileNetV2 (seeded weights; nothing downloaded) converted
   to fp32 .kiln, run at batch 1 on 1 thread: `kiln bench --threads 1
   --runs N` (its median) against N timed kiln.Session(threads=1).run calls
   on one image in a Python process that imports only kiln and numpy (the
   median of their wall times, which include the input copy in, the output
   copy out and the dict), and N run() calls on an input filled in place
   through Session.input_array (no copy in), alternating, R rounds; each
   figure is the median of the rounds' ratios.
2. int8 calibration of the same model from a torch DataLoader (batch 10,
   2 workers) over a dataset whose images are made on the fly (no dataset
   in memory), over 100 and over 1,000 images, each in a fresh process: its
   peak RSS (ru_maxrss) and time.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from int8_mobile_zoo import cpu, export, median_latency, run  # noqa: E402

CALIBRATE = r"""
import resource, sys, time
import numpy as np, torch, kiln

class Images(torch.utils.data.Dataset):
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(3, 224, 224, generator=g)

loader = torch.utils.data.DataLoader(Images(int(sys.argv[2])), batch_size=10,
                                     num_workers=2)
start = time.perf_counter()
r = kiln.calibrate(sys.argv[1], (x.numpy() for x in loader), sys.argv[3])
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{r['samples']} {peak:.0f} {took:.1f}")
"""


SESSION = r"""
import statistics, sys, time
import numpy as np, kiln
s = kiln.Session(sys.argv[1], threads=1)
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
if sys.argv[3] == "input_array":  # filled in place: run() copies no input
    np.copyto(s.input_array(0), x)
    x = None
for _ in range(3):
    s.run(x)
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    s.run(x)
    times.append((time.perf_counter() - t) * 1e3)
print(statistics.median(times))
"""


def session_median(path, runs, feed="array"):
    """In a process of its own that imports kiln and numpy only, as a user's
    would (this script imports PyTorch to export the model). feed: "array"
    (run(x), one copy in) or "input_array" (the input filled in place)."""
    return float(subprocess.run([sys.executable, "-c", SESSION, path, str(runs),
                                 feed],
                                check=True, capture_output=True, text=True).stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kiln")
    p.add_argument("workdir")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    print(f"CPU: {cpu()}")
    onnx = os.path.join(a.workdir, "mobilenet_v2.onnx")
    if not os.path.exists(onnx):
        export("mobilenet_v2", onnx)
    model = os.path.join(a.workdir, "mobilenet_v2.kiln")
    run(a.kiln, "convert", onnx, "-o", model)
    # The machine's speed drifts between rounds (this VM's medians moved by
    # a third within minutes): each round pairs the two, and the figure is
    # the median of the rounds' ratios.
    bench, py, view, ratios, view_ratios = [], [], [], [], []
    for _ in range(a.rounds):
        bench.append(median_latency(a.kiln, model, a.runs))
        py.append(session_median(model, a.runs))
        view.append(session_median(model, a.runs, "input_array"))
        ratios.append(py[-1] / bench[-1])
        view_ratios.append(view[-1] / bench[-1])
    mb = statistics.median(bench)
    for what, times, rs in (("Session.run(x)", py, ratios),
                            ("Session.run() on input_array()", view,
                             view_ratios)):
        r = statistics.median(rs)
        print(f"MobileNetV2 fp32, batch 1, 1 thread: kiln bench {mb:.2f} ms, "
              f"{what} {statistics.median(times):.2f} ms; / kiln bench per "
              f"round: median {100 * (r - 1):+.1f}% (rounds "
              f"{100 * (min(rs) - 1):+.1f}% to {100 * (max(rs) - 1):+.1f}%)")
    for n in (100, 1000):
        out = subprocess.run([sys.executable, "-c", CALIBRATE, onnx, str(n),
                              os.path.join(a.workdir, f"c{n}.kcal")],
                             check=True, capture_output=True, text=True).stdout.split()
        print(f"calibration from a DataLoader, {out[0]} images: peak RSS "
              f"{out[1]} MiB, {out[2]} s")


if __name__ == "__main__":
    main()
