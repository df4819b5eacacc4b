"""SQNR of GOT against REF, array by array: 10 log10(sum ref^2 / sum (got -
ref)^2), and the largest absolute error. usage: sqnr.py GOT.npz REF.npz MIN_DB"""
import sys

import numpy as np

got, ref, min_db = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
for name in ref.files:
    r = ref[name].astype(np.float64)
    g = got[name].astype(np.float64)
    noise = ((g - r) ** 2).sum()
    db = 200.0 if noise == 0 else min(200.0, 10 * np.log10((r ** 2).sum() / noise))
    print(f"{name}: sqnr {db:.1f} dB, max error {np.abs(g - r).max():.3g}, top-1 "
          f"{'same' if g.argmax() == r.argmax() else 'differs'}: "
          f"{'ok' if db >= min_db else 'LOW'}")
