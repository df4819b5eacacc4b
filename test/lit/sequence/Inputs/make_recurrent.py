"""A model of every recurrent form the IR takes from ONNX, random weights:
  y1, h1, c1: LSTM, bidirectional, layout 0, with biases and initial h and c
  y2, h2:     GRU, reverse, layout 1, linear_before_reset 0, initial h
  y3:         GRU, forward, linear_before_reset 1, no bias
  y4, h4:     RNN, forward, with bias
(x: [5, 2, 3] in layout 0; layout-1 layers read it transposed), and
recurrent.input.npz. usage: make_recurrent.py OUTDIR"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
S, B, I, H = 5, 2, 3, 4


def const(name, *shape):
    return numpy_helper.from_array(
        rng.uniform(-0.8, 0.8, shape).astype(np.float32), name)


inits = [
    const("w1", 2, 4 * H, I), const("r1", 2, 4 * H, H), const("b1", 2, 8 * H),
    const("h1_0", 2, B, H), const("c1_0", 2, B, H),
    const("w2", 1, 3 * H, I), const("r2", 1, 3 * H, H), const("b2", 1, 6 * H),
    const("h2_0", B, 1, H),
    const("w3", 1, 3 * H, I), const("r3", 1, 3 * H, H),
    const("w4", 1, H, I), const("r4", 1, H, H), const("b4", 1, 2 * H),
]
nodes = [
    helper.make_node("LSTM", ["x", "w1", "r1", "b1", "", "h1_0", "c1_0"],
                     ["y1", "h1", "c1"], hidden_size=H, direction="bidirectional"),
    helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
    helper.make_node("GRU", ["xt", "w2", "r2", "b2", "", "h2_0"], ["y2", "h2"],
                     hidden_size=H, direction="reverse", layout=1),
    helper.make_node("GRU", ["x", "w3", "r3"], ["y3"], hidden_size=H,
                     linear_before_reset=1),
    helper.make_node("RNN", ["x", "w4", "r4", "b4"], ["y4", "h4"], hidden_size=H),
]
f = TensorProto.FLOAT
shapes = {"y1": [S, 2, B, H], "h1": [2, B, H], "c1": [2, B, H],
          "y2": [B, S, 1, H], "h2": [B, 1, H], "y3": [S, 1, B, H],
          "y4": [S, 1, B, H], "h4": [1, B, H]}
outs = [helper.make_tensor_value_info(n, f, s) for n, s in shapes.items()]
graph = helper.make_graph(nodes, "recurrent",
                          [helper.make_tensor_value_info("x", f, [S, B, I])],
                          outs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
out = sys.argv[1]
onnx.save(model, os.path.join(out, "recurrent.onnx"))
np.savez(os.path.join(out, "recurrent.input.npz"),
         x=rng.standard_normal((S, B, I)).astype(np.float32))
