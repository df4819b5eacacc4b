"""Per `kiln inspect --json` of a Vulkan .kiln: its operators, dispatches,
the most dispatches of one operator and those of no operator."""
import collections
import json
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        d = json.load(f)
    per_op = collections.Counter(x["operator"] for x in d["vulkan"]["dispatches"])
    outside = per_op.pop(-1, 0)
    print(f"{d['operators']} operators, {d['vulkan']['dispatch_count']} dispatches, "
          f"most per operator {max(per_op.values(), default=0)}, "
          f"outside operators {outside}")
