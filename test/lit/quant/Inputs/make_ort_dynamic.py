"""A model in ONNX Runtime's dynamic QOperator format, as quantize_dynamic
writes it (its quantizer is not installable here, so it is written with
onnx.helper to the same rules), and its expected output computed
independently with integer arithmetic in numpy:

  x -> DynamicQuantizeLinear -> ConvInteger (int8 weight, per tensor, pads 1)
    -> Cast -> Mul(Mul(x_scale, w_scale)) -> Add(bias [1,C,1,1]) -> Relu
    -> Reshape -> DynamicQuantizeLinear -> MatMulInteger (int8 weight, one
    scale per column) -> Cast -> Mul(Mul(a_scale, b_scale)) -> Add(bias) -> y

DynamicQuantizeLinear as ONNX defines it: scale = (max(x, 0) - min(x, 0)) /
255, zp = sat(rint(-min(x, 0) / scale)), q = sat(rint(x / scale) + zp).
With --uint8-weights the weights are uint8 with zero points 128 and 120
(quantize_dynamic's weight_type=QUInt8); with --wide-uint8-weights, uint8
levels over the whole 0-255 range with zero point 0, which no int8 level
less a zero point of 0 holds (kiln stores them as int8 less 128). Writes dynamic.onnx, input.npz, expected.npz and float.npz
(the same network in float on the dequantized weights).
usage: make_ort_dynamic.py OUTDIR [--uint8-weights | --wide-uint8-weights]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)
out = sys.argv[1]
wide = "--wide-uint8-weights" in sys.argv[2:]
uint8_weights = wide or "--uint8-weights" in sys.argv[2:]
os.makedirs(out, exist_ok=True)

x = rng.uniform(-1.5, 2.5, (1, 3, 8, 8)).astype(np.float32)
wtype = np.uint8 if uint8_weights else np.int8
w1z = wtype(0 if wide else 128 if uint8_weights else 0)
w1 = (rng.integers(0, 256, (4, 3, 3, 3)) if wide
      else rng.integers(-127, 128, (4, 3, 3, 3)) + int(w1z)).astype(wtype)
w1s = np.float32(0.01)
b1 = rng.uniform(-0.5, 0.5, 4).astype(np.float32)
w2z = np.full(5, 120 if uint8_weights else 0, wtype)
w2 = (rng.integers(-100, 100, (4 * 8 * 8, 5)) + w2z.astype(np.int64)).astype(wtype)
w2s = rng.uniform(0.002, 0.006, 5).astype(np.float32)
b2 = rng.uniform(-1, 1, 5).astype(np.float32)


def dynamic_quantize(v):
    lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
    scale = np.float32((hi - lo) / 255.0)
    zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
    q = np.clip(np.rint(v / scale) + int(zp), 0, 255).astype(np.uint8)
    return q, scale, zp


def conv(x, w, pad):
    """Conv of x and w (already less their zero points), in their dtype."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    qp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    wi = w
    acc = np.zeros((n, m, h, wd), np.result_type(x, w))
    for i in range(h):
        for j in range(wd):
            acc[:, :, i, j] = np.tensordot(qp[:, :, i:i + kh, j:j + kw], wi, ([1, 2, 3], [1, 2, 3]))
    return acc


def forward(x, integer):
    if integer:
        q, s, z = dynamic_quantize(x)
        acc = conv(q.astype(np.int64) - int(z), w1.astype(np.int64) - int(w1z), 1)
        h = acc.astype(np.float32) * np.float32(s * w1s)
    else:
        h = conv(x.astype(np.float64), (w1.astype(np.float64) - int(w1z)) * w1s, 1)
    h = np.maximum(h + b1.reshape(1, -1, 1, 1), 0).reshape(1, -1).astype(np.float32)
    w2f = (w2.astype(np.int64) - w2z.astype(np.int64))
    if integer:
        q, s, z = dynamic_quantize(h)
        y = ((q.astype(np.int64) - int(z)) @ w2f).astype(np.float32) * (s * w2s)
    else:
        y = h.astype(np.float64) @ (w2f * w2s)
    return (y + b2).astype(np.float32)


c = numpy_helper.from_array
inits = [c(w1, "w1"), c(np.array(w1z), "w1z"), c(w1s, "w1s"), c(b1.reshape(1, 4, 1, 1), "b1"),
         c(w2, "w2"), c(w2z, "w2z"), c(w2s, "w2s"), c(b2, "b2"),
         c(np.array([1, -1], np.int64), "flat_shape")]
nodes = [
    helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
    helper.make_node("ConvInteger", ["xq", "w1", "xz", "w1z"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("Cast", ["c1"], ["c1f"], to=TensorProto.FLOAT),
    helper.make_node("Mul", ["xs", "w1s"], ["s1"]),
    helper.make_node("Mul", ["c1f", "s1"], ["m1"]),
    helper.make_node("Add", ["m1", "b1"], ["a1"]),
    helper.make_node("Relu", ["a1"], ["r1"]),
    helper.make_node("Reshape", ["r1", "flat_shape"], ["h"]),
    helper.make_node("DynamicQuantizeLinear", ["h"], ["hq", "hs", "hz"]),
    helper.make_node("MatMulInteger", ["hq", "w2", "hz", "w2z"], ["m2"]),
    helper.make_node("Cast", ["m2"], ["m2f"], to=TensorProto.FLOAT),
    helper.make_node("Mul", ["hs", "w2s"], ["s2"]),
    helper.make_node("Mul", ["m2f", "s2"], ["y2"]),
    helper.make_node("Add", ["y2", "b2"], ["y"]),
]
io = ([helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])])
model = helper.make_model(helper.make_graph(nodes, "ort_dynamic", *io, inits),
                          opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "dynamic.onnx"))
np.savez(os.path.join(out, "input.npz"), x=x)
np.savez(os.path.join(out, "expected.npz"), y=forward(x, True))
np.savez(os.path.join(out, "float.npz"), y=forward(x, False))
