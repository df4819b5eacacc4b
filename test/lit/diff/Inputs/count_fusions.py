"""Counts, from an ONNX file alone (onnx python), the fusions kiln's -O2
must perform, and checks them against the `passes` of a `kiln diff --json`
report: exactly these counts, and no other fuse-* entry.

  count_fusions.py MODEL.onnx DIFF.json

A BatchNormalization whose input is a Conv output -> fuse-conv-bn; a Relu
or Clip whose input is a Conv output (or such a BatchNormalization's) ->
fuse-activation; a Relu whose input is an Add output -> fuse-add-activation.
Each producer must feed only that node (otherwise nothing can be fused).
"""
import collections
import json
import sys

import onnx

model = onnx.load(sys.argv[1])
nodes = model.graph.node
producer = {out: n for n in nodes for out in n.output}
uses = collections.Counter(i for n in nodes for i in n.input)
kiln_op = {"Relu": "relu", "Clip": "clip"}

expected = collections.defaultdict(dict)


def count(pass_name, what):
    expected[pass_name][what] = expected[pass_name].get(what, 0) + 1


for n in nodes:
    p = producer.get(n.input[0]) if n.input else None
    if p is None or uses[n.input[0]] != 1:
        continue
    if n.op_type == "BatchNormalization" and p.op_type == "Conv":
        count("fuse-conv-bn", "batch_norm folded into conv")
    elif n.op_type in kiln_op:
        base = p
        if p.op_type == "BatchNormalization":
            q = producer.get(p.input[0])
            base = q if q is not None and q.op_type == "Conv" else p
        if base.op_type == "Conv":
            count("fuse-activation", kiln_op[n.op_type] + " folded into conv")
        elif p.op_type == "Add" and n.op_type == "Relu":
            count("fuse-add-activation", "relu folded into add")

with open(sys.argv[2]) as f:
    report = json.load(f)
got = {k: v for k, v in report["passes"].items() if k.startswith("fuse-")}
for pass_name in sorted(set(expected) | set(got)):
    for what in sorted(set(expected.get(pass_name, {})) | set(got.get(pass_name, {}))):
        e = expected.get(pass_name, {}).get(what, 0)
        g = got.get(pass_name, {}).get(what, 0)
        print(f"{pass_name}: {what}: onnx {e}, kiln diff {g}" + ("" if e == g else "  MISMATCH"))
        if e != g:
            sys.exit(1)
print("fusions match")
