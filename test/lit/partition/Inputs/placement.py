"""Prints what a `kiln convert --json` placement says, one line: the
partitions' targets, each CPU node's op and reason, and the boundaries."""
import json
import sys

d = json.load(sys.stdin)
p = d["placement"]
print("partitions", len(p["partitions"]),
      ",".join(x["target"] for x in p["partitions"]))
for n in p["cpu_nodes"]:
    print("cpu", n["op"], n["reason"])
print("boundaries", len(p["boundaries"]), "bytes", p["bytes_per_run"])
print("estimate", p["estimated_us"] > 0, p["all_cpu_us"] > 0)
