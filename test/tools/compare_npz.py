#!/usr/bin/env python3
"""Compares two .npz files array by array.

    compare_npz.py GOT.npz REF.npz [--rtol R] [--atol A]

Every array of REF must be in GOT with the same dtype and shape, and satisfy
|got - ref| <= atol + rtol * |ref| elementwise. Prints one line per array with
the largest absolute and relative differences, and the largest absolute
difference relative to the largest |ref| (norm_rel, which near-zero elements
cannot inflate); exits 1 on any mismatch.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("ref")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=0.0)
    a = ap.parse_args()
    got, ref = np.load(a.got), np.load(a.ref)
    bad = 0
    for name in ref.files:
        r = ref[name]
        if name not in got.files:
            print(f"{name}: MISSING from {a.got}")
            bad += 1
            continue
        g = got[name]
        if g.dtype != r.dtype or g.shape != r.shape:
            print(f"{name}: MISMATCH {g.dtype}{list(g.shape)} vs {r.dtype}{list(r.shape)}")
            bad += 1
            continue
        diff = np.abs(g.astype(np.float64) - r.astype(np.float64))
        rel = diff / np.maximum(np.abs(r.astype(np.float64)), np.finfo(np.float64).tiny)
        ok = bool(np.all(diff <= a.atol + a.rtol * np.abs(r)))
        scale = max(float(np.abs(r).max()), np.finfo(np.float64).tiny) if r.size else 1.0
        norm = diff.max() / scale if r.size else 0.0
        print(f"{name}: {'ok' if ok else 'MISMATCH'} max_abs={diff.max():.3g} "
              f"max_rel={rel.max():.3g} norm_rel={norm:.3g}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
