#!/usr/bin/env python3
"""SQNR of each array of GOT against REF, with a floor.

    sqnr_npz.py GOT.npz REF.npz --min-sqnr DB

SQNR = 10 log10(sum ref^2 / sum (got - ref)^2), in float64. Prints one line
per array of REF ("NAME: SQNR 41.2 dB ok", or "LOW" under the floor, or
"MISSING"); exits 1 when any array is missing, misshapen or under the floor.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("ref")
    ap.add_argument("--min-sqnr", type=float, required=True)
    a = ap.parse_args()
    got, ref = np.load(a.got), np.load(a.ref)
    bad = 0
    for name in ref.files:
        if name not in got.files or got[name].shape != ref[name].shape:
            print(f"{name}: MISSING or misshapen in {a.got}")
            bad += 1
            continue
        r = ref[name].astype(np.float64)
        e = got[name].astype(np.float64) - r
        noise = float((e * e).sum())
        sqnr = float("inf") if noise == 0 else 10 * np.log10(float((r * r).sum()) / noise)
        ok = sqnr >= a.min_sqnr
        bad += not ok
        print(f"{name}: SQNR {sqnr:.1f} dB {'ok' if ok else 'LOW'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
