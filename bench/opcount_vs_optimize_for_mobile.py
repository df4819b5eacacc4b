#!/usr/bin/env python3
"""Compute ops left after kiln -O2 and after PyTorch's optimize_for_mobile.

    /usr/bin/python3 bench/opcount_vs_optimize_for_mobile.py KILN [--models a,b]

For each full-size torchvision architecture (random weights, nothing
downloaded) the scripted module is saved once; PyTorch's
torch.utils.mobile_optimizer.optimize_for_mobile and `kiln opt -O2` both start
from that file. A compute op is a node that produces a tensor, other than
constants: in TorchScript, prim::Constant, list/tuple plumbing and scalar
arithmetic (size, len, comparisons) produce no tensor and are not counted;
in kiln, `const` nodes are not counted. Prints a table and the histograms.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import torch
import torchvision
from torch.utils.mobile_optimizer import optimize_for_mobile

MODELS = {
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(),
    "resnet18": lambda: torchvision.models.resnet18(),
    "resnet50": lambda: torchvision.models.resnet50(),
}


def torch_compute_ops(module):
    hist = collections.Counter()

    def visit(block):
        for n in block.nodes():
            for b in n.blocks():
                visit(b)
            if n.kind() == "prim::Constant":
                continue
            if any(isinstance(o.type(), torch._C.TensorType) for o in n.outputs()):
                hist[n.kind()] += 1

    visit(module.graph)
    return hist


def kiln_compute_ops(kiln, path):
    out = subprocess.run([kiln, "opt", "-O2", path, "--input-shape", "1x3x224x224",
                          "--json", "-o", path + ".kir"],
                         check=True, capture_output=True, text=True).stdout
    ops = json.loads(out)["ops"]
    return collections.Counter({k: v for k, v in ops.items() if k != "const"})


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kiln")
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args()
    torch.manual_seed(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            model = MODELS[name]().eval()
            scripted = torch.jit.script(model)
            path = os.path.join(tmp, name + ".pt")
            scripted.save(path)
            mobile = optimize_for_mobile(torch.jit.load(path))
            t = torch_compute_ops(mobile)
            k = kiln_compute_ops(args.kiln, path)
            rows.append((name, sum(k.values()), sum(t.values()), k, t))
    print("| model | kiln -O2 | optimize_for_mobile |")
    print("|---|---|---|")
    for name, kc, tc, _, _ in rows:
        print("| %s | %d | %d |" % (name, kc, tc))
    for name, _, _, k, t in rows:
        print("\n%s\n  kiln: %s\n  optimize_for_mobile: %s" % (
            name, dict(sorted(k.items())), dict(sorted(t.items()))))
    worse = [r[0] for r in rows if r[1] > r[2]]
    if worse:
        print("\nkiln leaves more compute ops on: " + ", ".join(worse))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
