"""Checks GOT against REF within MAX quanta of each output's int8 scale, read
from a `kiln convert --json` report (quantize.tensors, the activation named
like the output). usage: within-quanta.py GOT.npz REF.npz REPORT.json MAX"""
import json
import sys

import numpy as np

got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
tensors = json.load(open(sys.argv[3]))["quantize"]["tensors"]
limit = float(sys.argv[4])
scales = {t["name"]: t["scales"][0] for t in tensors if t["kind"] == "activation"}
for name in ref.files:
    scale = scales[name]
    quanta = np.abs(got[name].astype(np.float64) - ref[name]).max() / scale
    print(f"{name}: max difference {quanta:.2f} quanta of scale {scale:.4g}: "
          f"{'ok' if quanta <= limit else 'TOO FAR'}")
