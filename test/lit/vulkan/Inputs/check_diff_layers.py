# Reads `kiln diff --per-layer --json` and prints how many layers and
# outputs it compared and whether every max_abs is below a bound (argv[2]);
# lists the offenders otherwise. For test/lit/vulkan/diff.test.
import json
import sys

report = json.load(open(sys.argv[1]))
bound = float(sys.argv[2])
for key in ("layers", "outputs"):
    items = report.get(key, [])
    bad = [i for i in items if not (i.get("max_abs", i.get("metrics", {}).get("max_abs", 1e30)) < bound)]
    print(f"{key}: {len(items)}, " + (f"all with max_abs < {bound:g}" if not bad else f"{len(bad)} over {bound:g}: {bad[:3]}"))
if len(sys.argv) > 3:
    other = json.load(open(sys.argv[3]))
    names = sorted(l["name"] for l in report.get("layers", []))
    print("unread layers:", report.get("unread_layers", "key missing"))
    print("the same layers as the CPU file:",
          names == sorted(l["name"] for l in other.get("layers", [])))
