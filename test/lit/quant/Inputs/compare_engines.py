"""Compares two `kiln calibrate --json` reports of the same model, one per
calibration engine (the runtime's kernels and the interpreter's round
differently in the last bits of a float).

- The same tensors, element counts and histogram ranges (exponents).
- min/max: within the relative tolerance given as the third argument.
- The histograms, which percentile, entropy and mse consume: rounding can
  only carry a value that lies next to a bin edge into the adjacent bin. So
  each value moved at most one bin (every cumulative count of one report lies
  between the other's at the neighbouring bins), and the moved values are at
  most the fraction given as the fourth argument.
- percentile, entropy and mse pick a threshold on those bins (mse and
  entropy by a search whose neighbouring candidates can differ by less than
  rounding): their chosen range ends must be at most one bin width apart.
"""
import json
import sys
from itertools import accumulate

a, b = (json.load(open(p)) for p in sys.argv[1:3])
rel_tol, moved_tol = float(sys.argv[3]), float(sys.argv[4])
ta, tb = a["tensors"], b["tensors"]
names = [t["name"] for t in ta] == [t["name"] for t in tb]
counts = all(x["count"] == y["count"] for x, y in zip(ta, tb))
exponents = all(x["exponent"] == y["exponent"] for x, y in zip(ta, tb))
print("tensors %d same names %s same counts %s same ranges %s"
      % (len(ta), names, counts, exponents))


def rel(x, y):
    return abs(x - y) / max(abs(x), abs(y), 1e-30)


def cumulative(t, nbins):
    dense = [0] * nbins
    for i, n in t["bins"]:
        dense[i] = n
    return list(accumulate(dense))


nbins = a["bins"]
moved = total = 0
adjacent = True
for x, y in zip(ta, tb):
    cx, cy = cumulative(x, nbins), cumulative(y, nbins)
    for i in range(nbins):
        lo = i - 1 if i > 0 else i
        hi = i + 1 if i + 1 < nbins else i
        adjacent &= cy[lo] <= cx[i] <= cy[hi] and cx[lo] <= cy[i] <= cx[hi]
    # Values in another bin: half the L1 distance of the two histograms.
    moved += sum(abs(p - q) for p, q in
                 zip([cx[0]] + [cx[i] - cx[i - 1] for i in range(1, nbins)],
                     [cy[0]] + [cy[i] - cy[i - 1] for i in range(1, nbins)])) // 2
    total += x["count"]
print("histograms: %d of %d values in another bin, each at most one bin "
      "away: %s, fraction within %g: %s"
      % (moved, total, adjacent, moved_tol, moved <= moved_tol * total))

worst = 0.0
for x, y in zip(ta, tb):
    worst = max(worst, rel(x["min"], y["min"]), rel(x["max"], y["max"]))
print("minmax worst relative difference %.1e, within %g: %s"
      % (worst, rel_tol, worst <= rel_tol))

for method in ("entropy", "mse", "percentile"):
    bins_apart = 0.0
    for x, y in zip(ta, tb):
        width = 2.0 ** (x["exponent"] + 1) / nbins
        ra, rb = x["methods"][method]["range"], y["methods"][method]["range"]
        bins_apart = max(bins_apart, abs(ra[0] - rb[0]) / width,
                         abs(ra[1] - rb[1]) / width)
    print("%s range ends at most one bin apart: %s (worst %.2f bins)"
          % (method, bins_apart <= 1.0 + 1e-9, bins_apart))
