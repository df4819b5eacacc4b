"""Writes a large MLP as ONNX with its weights in an external data file:
LAYERS x (MatMul + Add + Relu) of WIDTH -> HIDDEN -> WIDTH ..., seeded
weights scaled by 1/sqrt(fan-in) so activations stay O(1), plus a sample
input and its float64 reference output (numpy). Quick: the weights are
drawn and written one layer at a time, never held together.

  make_mlp.py OUT_DIR --gb 2.7          # total fp32 weight bytes
  make_mlp.py OUT_DIR --layers 6 --width 2048 --hidden 4096

Writes OUT_DIR/mlp.onnx, mlp.onnx.data, mlp.input.npy, mlp.ref.npy and
prints the weight bytes; with --calib N, also N calibration inputs
(OUT_DIR/calib/sample-K.npy, drawn as the input is) for --quantize int8. Used by bench/large_model/measure.py and by the
runtime's packed-weight release test (a ~200 MB model)."""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gb", type=float, help="total weight size in GB (1e9)")
    ap.add_argument("--layers", type=int, default=20)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--hidden", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calib", type=int, default=0,
                    help="calibration samples to write")
    a = ap.parse_args()
    if a.gb:  # layers of width x hidden alternate with hidden x width
        per = a.width * a.hidden * 4
        a.layers = max(1, round(a.gb * 1e9 / per))
    os.makedirs(a.out, exist_ok=True)
    data_name = "mlp.onnx.data"
    data_path = os.path.join(a.out, data_name)
    rng = np.random.default_rng(a.seed)
    nodes, inits = [], []
    x = rng.standard_normal((a.batch, a.width), dtype=np.float32)
    ref = x.astype(np.float64)
    offset = 0
    prev = "x"
    with open(data_path, "wb") as data:
        for i in range(a.layers):
            fan_in, fan_out = (a.width, a.hidden) if i % 2 == 0 else (a.hidden, a.width)
            w = rng.standard_normal((fan_in, fan_out), dtype=np.float32)
            w *= np.float32(1.0 / math.sqrt(fan_in))
            b = (rng.standard_normal(fan_out, dtype=np.float32) * np.float32(0.1))
            for name, arr in (("w%d" % i, w), ("b%d" % i, b)):
                raw = arr.tobytes()
                t = TensorProto()
                t.name, t.data_type = name, TensorProto.FLOAT
                t.dims.extend(arr.shape)
                t.data_location = TensorProto.EXTERNAL
                for k, v in (("location", data_name), ("offset", str(offset)),
                             ("length", str(len(raw)))):
                    e = t.external_data.add()
                    e.key, e.value = k, v
                data.write(raw)
                pad = (-len(raw)) % 4096  # page-aligned tensors, as ORT writes
                data.write(b"\0" * pad)
                offset += len(raw) + pad
                inits.append(t)
            ref = ref @ w.astype(np.float64) + b.astype(np.float64)
            last = i == a.layers - 1
            mm, add, out = "mm%d" % i, "add%d" % i, "y" if last else "h%d" % i
            nodes.append(helper.make_node("MatMul", [prev, "w%d" % i], [mm]))
            nodes.append(helper.make_node("Add", [mm, "b%d" % i], [add if not last else out]))
            if not last:
                nodes.append(helper.make_node("Relu", [add], [out]))
                ref = np.maximum(ref, 0)
            prev = out
            del w, b
    width_out = a.width if a.layers % 2 == 0 else a.hidden
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [a.batch, a.width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [a.batch, width_out])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(a.out, "mlp.onnx"))
    np.save(os.path.join(a.out, "mlp.input.npy"), x)
    np.save(os.path.join(a.out, "mlp.ref.npy"), ref)
    if a.calib:
        os.makedirs(os.path.join(a.out, "calib"), exist_ok=True)
        for k in range(a.calib):
            np.save(os.path.join(a.out, "calib", "sample-%d.npy" % k),
                    rng.standard_normal((a.batch, a.width), dtype=np.float32))
    weights = sum(int(np.prod(t.dims)) * 4 for t in inits)
    print("%d layers, %d weight bytes" % (a.layers, weights))


if __name__ == "__main__":
    main()
