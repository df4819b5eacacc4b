"""Counts float constants of +-infinity and +-FLT_MAX in `kiln inspect --json`
reports (finite-bounds.test). Metal reports type their function constants;
Vulkan's constants 3 and 4 are the clamp bounds of every kernel with one."""
import json
import sys

INFINITE = {0x7F800000, 0xFF800000}
FLT_MAX = {0x7F7FFFFF, 0xFF7FFFFF}

kind, paths = sys.argv[1], sys.argv[2:]
infinite = flt_max = 0
for path in paths:
    report = json.load(open(path))
    if kind == "metal":
        section = report["metal"]
        types = [{c["id"]: c["type"] for c in k["function_constants"]}
                 for k in section["kernels"]]
        for d in section["dispatches"]:
            for c in d["function_constants"]:
                if types[d["kernel"]].get(c["id"]) != "float":
                    continue
                infinite += c["value"] in INFINITE
                flt_max += c["value"] in FLT_MAX
    else:
        for d in report["vulkan"]["dispatches"]:
            for c in d["spec_constants"]:
                if c["id"] in (3, 4):
                    infinite += c["value"] in INFINITE
print("infinite", infinite)
print("flt_max", flt_max)
