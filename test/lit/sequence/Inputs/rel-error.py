"""Largest error of GOT against REF relative to REF's largest magnitude, array
by array (arrays matched by name, or in order when the names differ), and
whether it is within MAX. usage: rel-error.py GOT.npz REF.npz MAX"""
import sys

import numpy as np

got, ref, limit = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
names = ref.files if set(ref.files) <= set(got.files) else None
for i, name in enumerate(ref.files):
    r = ref[name].astype(np.float64)
    g = got[name if names else got.files[i]].astype(np.float64)
    if g.shape != r.shape:
        print(f"{name}: shape {g.shape} != {r.shape}: BAD")
        continue
    rel = np.abs(g - r).max() / max(np.abs(r).max(), 1e-30)
    print(f"{name}: {'within' if rel <= limit else 'ABOVE'} {limit:g} relative")
