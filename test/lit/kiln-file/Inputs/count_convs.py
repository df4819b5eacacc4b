"""Counts an ONNX model's Conv nodes: all, dense (group 1), and grouped or
depthwise (group > 1); and its Add nodes. Read with onnx python,
independently of kiln."""
import sys

import onnx

model = onnx.load(sys.argv[1])
groups = [next((a.i for a in n.attribute if a.name == "group"), 1)
          for n in model.graph.node if n.op_type == "Conv"]
dense = sum(1 for g in groups if g == 1)
adds = sum(1 for n in model.graph.node if n.op_type == "Add")
print("conv %d dense %d depthwise %d add %d"
      % (len(groups), dense, len(groups) - dense, adds))
