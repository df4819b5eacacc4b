"""Models in ONNX Runtime's two quantized formats, written with onnx.helper
to the formats' documented rules (ONNX Runtime's own quantizer is not
installable here), and their expected output computed independently with
integer arithmetic in numpy, as ONNX Runtime's kernels define it:
acc = sum((x - x_zp) (w - w_zp)) + bias, y = sat(rint(acc * x_s w_s / y_s) + y_zp).

  qoperator.onnx  QuantizeLinear -> QLinearConv (per-channel int8 weights,
                  int32 bias) -> QLinearConv (per-tensor) -> QLinearMatMul
                  (per-column weights) -> DequantizeLinear, uint8 activations
  qdq.onnx        the same network as QDQ: QuantizeLinear/DequantizeLinear
                  around Conv and MatMul, weights and biases dequantized
  input.npz, expected.npz (and the output's quantum in quantum.txt)
usage: make_ort_formats.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

x = rng.uniform(-2, 2, (1, 3, 6, 6)).astype(np.float32)
xs, xz = np.float32(0.02), np.uint8(128)
w1 = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
w1s = rng.uniform(0.002, 0.01, 4).astype(np.float32)
b1 = rng.integers(-3000, 3000, 4).astype(np.int32)
y1s, y1z = np.float32(0.05), np.uint8(100)
w2 = rng.integers(-127, 128, (4, 4, 1, 1)).astype(np.int8)
w2s = np.float32(0.008)
b2 = rng.integers(-500, 500, 4).astype(np.int32)
y2s, y2z = np.float32(0.04), np.uint8(120)
w3 = rng.integers(-127, 128, (4 * 6 * 6, 5)).astype(np.int8)
w3s = rng.uniform(0.001, 0.004, 5).astype(np.float32)
y3s, y3z = np.float32(0.1), np.uint8(128)


def requant(acc, scale, zp):
    return np.clip(np.rint(acc.astype(np.float32) * scale) + int(zp), 0, 255).astype(np.uint8)


def conv(q, qz, w, b, pad):
    n, c, h, wd = q.shape
    m, _, kh, kw = w.shape
    qp = np.pad(q.astype(np.int64) - int(qz), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    acc = np.zeros((n, m, h, wd), np.int64)
    for i in range(h):
        for j in range(wd):
            patch = qp[:, :, i:i + kh, j:j + kw]
            acc[:, :, i, j] = np.tensordot(patch, w.astype(np.int64), ([1, 2, 3], [1, 2, 3]))
    return acc + b.reshape(1, -1, 1, 1)


q0 = np.clip(np.rint(x / xs) + int(xz), 0, 255).astype(np.uint8)
q1 = requant(conv(q0, xz, w1, b1, 1), (xs * w1s / y1s).reshape(1, -1, 1, 1), y1z)
q2 = requant(conv(q1, y1z, w2, b2, 0), xs * 0 + y1s * w2s / y2s, y2z)
flat = q2.reshape(1, -1).astype(np.int64) - int(y2z)
q3 = requant(flat @ w3.astype(np.int64), (y2s * w3s / y3s).reshape(1, -1), y3z)
expected = ((q3.astype(np.float32) - int(y3z)) * y3s).astype(np.float32)

c = numpy_helper.from_array
inits = [c(xs, "xs"), c(np.array(xz), "xz"), c(w1, "w1"), c(w1s, "w1s"),
         c(np.zeros(4, np.int8), "w1z"), c(b1, "b1"), c(y1s, "y1s"),
         c(np.array(y1z), "y1z"), c(w2, "w2"), c(w2s, "w2s"),
         c(np.array(np.int8(0)), "w2z"), c(b2, "b2"), c(y2s, "y2s"),
         c(np.array(y2z), "y2z"), c(w3, "w3"), c(w3s, "w3s"),
         c(np.zeros(5, np.int8), "w3z"), c(y3s, "y3s"), c(np.array(y3z), "y3z"),
         c(np.array([1, -1], np.int64), "flat_shape")]
io = ([helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])])

qop = [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q0"]),
    helper.make_node("QLinearConv", ["q0", "xs", "xz", "w1", "w1s", "w1z", "y1s", "y1z", "b1"],
                     ["q1"], pads=[1, 1, 1, 1]),
    helper.make_node("QLinearConv", ["q1", "y1s", "y1z", "w2", "w2s", "w2z", "y2s", "y2z", "b2"],
                     ["q2"]),
    helper.make_node("Reshape", ["q2", "flat_shape"], ["q2f"]),
    helper.make_node("QLinearMatMul", ["q2f", "y2s", "y2z", "w3", "w3s", "w3z", "y3s", "y3z"],
                     ["q3"]),
    helper.make_node("DequantizeLinear", ["q3", "y3s", "y3z"], ["y"]),
]


def dq(name, s, z, out_name, axis=None):
    kw = {} if axis is None else {"axis": axis}
    return helper.make_node("DequantizeLinear", [name, s, z], [out_name], **kw)


qdq_inits = inits + [c((xs * w1s).astype(np.float32), "b1s"),
                     c(np.float32(y1s * w2s), "b2s")]
qdq = [
    helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["q0"]),
    dq("q0", "xs", "xz", "d0"),
    dq("w1", "w1s", "w1z", "dw1", axis=0),
    helper.make_node("DequantizeLinear", ["b1", "b1s"], ["db1"], axis=0),
    helper.make_node("Conv", ["d0", "dw1", "db1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("QuantizeLinear", ["c1", "y1s", "y1z"], ["q1"]),
    dq("q1", "y1s", "y1z", "d1"),
    dq("w2", "w2s", "w2z", "dw2"),
    helper.make_node("DequantizeLinear", ["b2", "b2s"], ["db2"]),
    helper.make_node("Conv", ["d1", "dw2", "db2"], ["c2"]),
    helper.make_node("QuantizeLinear", ["c2", "y2s", "y2z"], ["q2"]),
    helper.make_node("Reshape", ["q2", "flat_shape"], ["q2f"]),
    dq("q2f", "y2s", "y2z", "d2"),
    dq("w3", "w3s", "w3z", "dw3", axis=1),
    helper.make_node("MatMul", ["d2", "dw3"], ["m3"]),
    helper.make_node("QuantizeLinear", ["m3", "y3s", "y3z"], ["q3"]),
    dq("q3", "y3s", "y3z", "y"),
]
for name, nodes, init in (("qoperator", qop, inits), ("qdq", qdq, qdq_inits)):
    model = helper.make_model(helper.make_graph(nodes, name, *io, init),
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
np.savez(os.path.join(out, "input.npz"), x=x)
np.savez(os.path.join(out, "expected.npz"), y=expected)
print("output quantum", float(y3s), "levels", q3.ravel().tolist())
