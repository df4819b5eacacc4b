"""Checks the per-layer rows of a `kiln diff --per-layer --json` report
against the ONNX model alone: every ONNX node but Constants must be
matched, except a Conv
or Add whose only consumer is a Relu or Clip (the fused pair is one layer, matched
through the activation). Rows must come worst SQNR first (ties within 0.1 dB), and
with MIN_DB every layer must be above it.

  check_layers.py MODEL.onnx REPORT.json [MIN_DB]
"""
import json
import sys

import onnx

model = onnx.load(sys.argv[1])
report = json.load(open(sys.argv[2]))
min_db = float(sys.argv[3]) if len(sys.argv) > 3 else None

consumers = {}
for n in model.graph.node:
    for i in n.input:
        consumers.setdefault(i, []).append(n)
expected = set()
for n in model.graph.node:
    if n.op_type == "Constant":
        continue
    users = consumers.get(n.output[0], [])
    if n.op_type in ("Conv", "Add") and len(users) == 1 and users[0].op_type in ("Relu", "Clip"):
        continue
    expected.add(n.name)

rows = report["layers"]
matched = {r["matches"] for r in rows}
print(f"onnx layers: {len(expected)}, rows: {len(rows)}")
print("missing:", sorted(expected - matched) or "none")
print("unexpected:", sorted(matched - expected) or "none")
db = [float(r["sqnr_db"]) for r in rows]
order_ok = all(db[i] <= db[i + 1] + 0.1 for i in range(len(db) - 1))
print("worst first:", "yes" if order_ok else "no")
if min_db is not None:
    low = [(r["name"], r["sqnr_db"]) for r in rows if float(r["sqnr_db"]) <= min_db]
    print(f"layers at or below {min_db} dB:", low or "none")
