"""Exports a small CNN the way PyTorch tutorials write it: flattened with
x.view(x.size(0), -1) (ONNX: Shape, Gather, Unsqueeze, Concat, Reshape), a
dynamic batch, seeded weights. usage: export_view_cnn.py OUT.onnx"""
import sys

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 8 * 8, 10)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        x = x.view(x.size(0), -1)
        return self.fc(self.drop(x))


torch.manual_seed(0)
torch.onnx.export(Net().eval(), torch.zeros(1, 1, 16, 16), sys.argv[1],
                  input_names=["input"], output_names=["logits"],
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                  opset_version=13)
