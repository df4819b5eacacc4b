"""Checks an ONNX model written by `kiln convert --target onnx` with the
onnx python package, independently of kiln: the full checker (strict shape
inference), the opset, and its op histogram; with a reference model, that
the histograms are equal, Constant nodes aside (fusions must map back to
standard ONNX nodes);
with --qdq, that every DequantizeLinear with a per-channel scale has axis 0.

  check_export.py EXPORTED.onnx [--same-ops-as ORIGINAL.onnx] [--qdq]
"""
import collections
import sys

import onnx

model = onnx.load(sys.argv[1])
onnx.checker.check_model(model, full_check=True)
print("full check ok, opset", model.opset_import[0].version)
ops = collections.Counter(n.op_type for n in model.graph.node)
print("ops:", ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
if "--same-ops-as" in sys.argv:
    ref = onnx.load(sys.argv[sys.argv.index("--same-ops-as") + 1])
    # Constant nodes (clip bounds...) become initializers in kiln's IR.
    ref_ops = collections.Counter(n.op_type for n in ref.graph.node
                                  if n.op_type != "Constant")
    print("same ops as the original:", ops == ref_ops)
if "--qdq" in sys.argv:
    init = {t.name: t for t in model.graph.initializer}
    per_channel = axis0 = 0
    for n in model.graph.node:
        if n.op_type != "DequantizeLinear":
            continue
        scale = init.get(n.input[1])
        if scale is not None and len(scale.dims) == 1 and scale.dims[0] > 1:
            per_channel += 1
            axis = {a.name: a.i for a in n.attribute}.get("axis", 1)
            axis0 += axis == 0
    print(f"per-channel DequantizeLinear: {per_channel}, with axis 0: {axis0}")
