"""Checks `kiln calibrate --json` for the graph input against numpy: min, max,
range exponent, every histogram bin (np.histogram with the power-of-two edges)
and the percentile range (the first bin edges where the cumulative count
passes p% and (100-p)%). usage: check-histogram.py DATA.npy STATS.json P"""
import json
import math
import sys

import numpy as np

data = np.load(sys.argv[1]).astype(np.float64).ravel()
stats = json.load(open(sys.argv[2]))
p = float(sys.argv[3])
t = next(x for x in stats["tensors"] if x["ordinal"] == 0)
bins = stats["bins"]
lo, hi = data.min(), data.max()
e = max(math.frexp(max(abs(lo), abs(hi)))[1], -126)
edges = (np.arange(bins + 1) - bins // 2) * 2.0 ** (e + 1) / bins
counts, _ = np.histogram(data, edges)
got = np.zeros(bins, np.int64)
for i, c in t["bins"]:
    got[i] = c
cum = np.cumsum(counts)
n = len(data)
p_hi = min(hi, edges[np.argmax(cum >= p * n / 100.0) + 1])
p_lo = max(lo, edges[np.argmax(cum > (100.0 - p) * n / 100.0)])
checks = {
    "count": t["count"] == n,
    "min": t["min"] == lo,
    "max": t["max"] == hi,
    "exponent": t["exponent"] == e,
    "bins": bool((got == counts).all()),
    "minmax": t["methods"]["minmax"]["range"] == [lo, hi],
    "percentile": t["methods"]["percentile"]["range"] == [p_lo, p_hi],
}
print("values", n, "occupied bins", int((counts > 0).sum()),
      "percentile clips", bool(p_lo > lo and p_hi < hi))
for k, v in checks.items():
    print(k, "ok" if v else "MISMATCH")
