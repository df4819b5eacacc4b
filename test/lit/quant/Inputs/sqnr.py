"""SQNR of GOT against REF, array by array: 10 log10(sum ref^2 / sum (got -
ref)^2), and the largest absolute error. usage: sqnr.py GOT.npz REF.npz MIN_DB"""
import sys

import numpy as np


def sqnr_db(got, ref):
    """In dB, capped at 200 (also for an exact match)."""
    r, g = ref.astype(np.float64), got.astype(np.float64)
    noise = ((g - r) ** 2).sum()
    return 200.0 if noise == 0 else min(200.0, 10 * np.log10((r ** 2).sum() / noise))


def main():
    got, ref, min_db = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
    for name in ref.files:
        r, g = ref[name], got[name]
        db = sqnr_db(g, r)
        print(f"{name}: sqnr {db:.1f} dB, max error "
              f"{np.abs(g.astype(np.float64) - r).max():.3g}, top-1 "
              f"{'same' if g.argmax() == r.argmax() else 'differs'}: "
              f"{'ok' if db >= min_db else 'LOW'}")


if __name__ == "__main__":
    main()
