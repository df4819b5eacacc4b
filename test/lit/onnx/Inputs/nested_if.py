"""Writes an ONNX model whose If nodes nest DEPTH deep: each then-branch
holds the next If, the innermost branches return constants."""
import sys

import onnx
from onnx import TensorProto, helper


def branch(depth, value):
    out = helper.make_tensor_value_info("r%d" % depth, TensorProto.FLOAT, [1])
    if depth == 0:
        node = helper.make_node(
            "Constant", [], ["r0"],
            value=helper.make_tensor("c", TensorProto.FLOAT, [1], [value]))
    else:
        node = helper.make_node(
            "If", ["cond"], ["r%d" % depth],
            then_branch=branch(depth - 1, 1.0),
            else_branch=branch(0, 2.0))
    return helper.make_graph([node], "b%d" % depth, [], [out])


def main():
    depth, path = int(sys.argv[1]), sys.argv[2]
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    node = helper.make_node("If", ["cond"], ["y"],
                            then_branch=branch(depth - 1, 1.0),
                            else_branch=branch(0, 2.0))
    graph = helper.make_graph([node], "nested_if", [cond], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
