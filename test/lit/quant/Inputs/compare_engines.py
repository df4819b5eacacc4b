"""Compares two `kiln calibrate --json` reports of the same model (one per
calibration engine): the same tensors with the same element counts, and how
far apart their min/max and every method's scale are (relative), and
whether that is within the tolerance given as the third argument."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
ta, tb = a["tensors"], b["tensors"]
names = [t["name"] for t in ta] == [t["name"] for t in tb]
counts = all(x["count"] == y["count"] for x, y in zip(ta, tb))


def rel(x, y):
    return abs(x - y) / max(abs(x), abs(y), 1e-30)


worst = {"minmax": 0.0}
for x, y in zip(ta, tb):
    worst["minmax"] = max(worst["minmax"], rel(x["min"], y["min"]),
                          rel(x["max"], y["max"]))
    for m, v in x["methods"].items():
        worst[m] = max(worst.get(m, 0.0), rel(v["scale"], y["methods"][m]["scale"]))
print("tensors %d same names %s same counts %s" % (len(ta), names, counts))
tol = float(sys.argv[3])
for k in sorted(worst):
    print("%s worst relative difference %.1e, within %g: %s"
          % (k, worst[k], tol, worst[k] <= tol))
