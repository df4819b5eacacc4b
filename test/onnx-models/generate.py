#!/usr/bin/python3
"""Small valid ONNX models for the importer's unit tests
(test/unit/onnx/OnnxImporterTest.cpp). Each exercises one mapping rule:
auto_pad, old-opset Softmax, Clip bounds, variadic Mean, symbolic dims,
external data, attributes that became inputs, training-mode BatchNorm...

    /usr/bin/python3 test/onnx-models/generate.py [OUTDIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def vi(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln-tests")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    return m


def arr(name, shape, dtype=np.float32):
    return numpy_helper.from_array(np.arange(np.prod(shape), dtype=dtype).reshape(shape), name)


def main():
    save("conv_relu",
         [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
          helper.make_node("Relu", ["c"], ["y"])],
         [vi("x", [1, 3, 8, 8])], [vi("y", [1, 4, 8, 8])], [arr("w", (4, 3, 3, 3)), arr("b", (4,))])
    save("conv_same_upper",
         [helper.make_node("Conv", ["x", "w"], ["y"], name="conv0", auto_pad="SAME_UPPER",
                           strides=[2, 2])],
         [vi("x", [1, 1, 7, 7])], [vi("y", [1, 1, 4, 4])], [arr("w", (1, 1, 4, 4))])
    save("softmax_v11", [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
         [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], opset=11)
    save("clip_v11",
         [helper.make_node("Clip", ["x", "lo", "hi"], ["y"], name="clip0")],
         [vi("x", [1, 4])], [vi("y", [1, 4])],
         [numpy_helper.from_array(np.array(0, np.float32), "lo"),
          numpy_helper.from_array(np.array(6, np.float32), "hi")], opset=11)
    save("mean3", [helper.make_node("Mean", ["a", "b", "c"], ["y"], name="mean0")],
         [vi("a", [2]), vi("b", [2]), vi("c", [2])], [vi("y", [2])])
    save("symbolic", [helper.make_node("Relu", ["x"], ["y"], name="r")],
         [vi("x", ["N", 3])], [vi("y", ["N", 3])])
    save("split_v11", [helper.make_node("Split", ["x"], ["a", "b"], name="s", axis=0, split=[1, 3])],
         [vi("x", [4, 2])], [vi("a", [1, 2]), vi("b", [3, 2])], opset=11)
    save("unsqueeze_v11", [helper.make_node("Unsqueeze", ["x"], ["y"], name="u", axes=[0, 2])],
         [vi("x", [3, 4])], [vi("y", [1, 3, 1, 4])], opset=11)
    save("batchnorm_training",
         [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                           name="bn", training_mode=1)],
         [vi("x", [2, 3, 4, 4])], [vi("y", [2, 3, 4, 4]), vi("rm", [3]), vi("rv", [3])],
         [arr("s", (3,)), arr("b", (3,)), arr("m", (3,)), arr("v", (3,))], opset=15)
    save("dropout_mask", [helper.make_node("Dropout", ["x"], ["y", "mask"], name="d")],
         [vi("x", [2, 2])], [vi("y", [2, 2]), vi("mask", [2, 2], TensorProto.BOOL)])
    # An old exporter's initializer that is also listed as a graph input.
    save("init_as_input", [helper.make_node("Add", ["x", "w"], ["y"], name="add0")],
         [vi("x", [2]), vi("w", [2])], [vi("y", [2])], [arr("w", (2,))])

    # External data: 64 bytes of padding, then w (f32[4]) at offset 64.
    w = np.array([1, 2, 3, 4], np.float32)
    with open(os.path.join(OUT, "external.bin"), "wb") as f:
        f.write(bytes(64) + w.tobytes())
    t = TensorProto()
    t.name, t.data_type = "w", TensorProto.FLOAT
    t.dims.extend([4])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "external.bin"), ("offset", "64"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["y"], name="mul0")], "external",
                          [vi("x", [4])], [vi("y", [4])], initializer=[t])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, os.path.join(OUT, "external.onnx"))


if __name__ == "__main__":
    main()
