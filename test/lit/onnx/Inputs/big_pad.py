"""Writes an ONNX Pad of a f32[1,4] by PAD elements at the end of axis 1."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    pad, path = int(sys.argv[1]), sys.argv[2]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4 + pad])
    pads = numpy_helper.from_array(np.array([0, 0, 0, pad], np.int64), "pads")
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="constant")
    graph = helper.make_graph([node], "big_pad", [x], [y], initializer=[pads])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


if __name__ == "__main__":
    main()
