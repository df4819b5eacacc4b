"""Counts an ONNX model's Conv nodes: all, dense (group 1), and grouped or
depthwise (group > 1); its Add nodes; and its narrow pointwise convs: 1x1,
group 1, at most 32 input channels, and not followed at once by an Add that
alone reads their output (a residual Add the runtime folds into the conv).
Read with onnx python, independently of kiln."""
import sys

import onnx

model = onnx.load(sys.argv[1])
weights = {i.name: list(i.dims) for i in model.graph.initializer}
readers = {}
for n in model.graph.node:
    for name in n.input:
        readers.setdefault(name, []).append(n.op_type)
convs = [n for n in model.graph.node if n.op_type == "Conv"]
groups = [next((a.i for a in n.attribute if a.name == "group"), 1)
          for n in convs]
dense = sum(1 for g in groups if g == 1)
adds = sum(1 for n in model.graph.node if n.op_type == "Add")
nodes = list(model.graph.node)


def takes_add(conv):
    """True when the next node is an Add and the only reader of conv."""
    i = nodes.index(conv)
    return (readers.get(conv.output[0]) == ["Add"] and i + 1 < len(nodes)
            and nodes[i + 1].op_type == "Add"
            and conv.output[0] in nodes[i + 1].input)


narrow = sum(1 for n, g in zip(convs, groups)
             if g == 1 and weights[n.input[1]][2:] == [1, 1]
             and weights[n.input[1]][1] <= 32 and not takes_add(n))
print("conv %d dense %d depthwise %d add %d narrow %d"
      % (len(groups), dense, len(groups) - dense, adds, narrow))
