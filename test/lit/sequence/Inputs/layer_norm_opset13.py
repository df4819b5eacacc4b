"""Writes OUT/ln13.onnx, nn.LayerNorm exported at opset 13 (where
torch.onnx.export writes it out as ReduceMean, Sub, Pow, ReduceMean, Add,
Sqrt, Div, Mul, Add), OUT/in.npz and OUT/ref.npz (PyTorch's outputs): a
LayerNorm over the last axis with gamma and beta, and one over the last two
without them. usage: layer_norm_opset13.py OUT"""
import os
import sys
import warnings

import numpy as np
import torch


class Norms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.last = torch.nn.LayerNorm(8)
        self.both = torch.nn.LayerNorm([4, 8], elementwise_affine=False)

    def forward(self, x):
        return self.last(x), self.both(x)


out = sys.argv[1]
torch.manual_seed(0)
model = Norms().eval()
with torch.no_grad():
    model.last.weight.uniform_(0.5, 1.5)
    model.last.bias.uniform_(-0.5, 0.5)
x = torch.randn(2, 4, 8) * 3 + 1
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    torch.onnx.export(model, (x,), os.path.join(out, "ln13.onnx"), opset_version=13,
                      input_names=["x"], output_names=["y", "z"])
with torch.no_grad():
    y, z = model(x)
np.savez(os.path.join(out, "in.npz"), x=x.numpy())
np.savez(os.path.join(out, "ref.npz"), y=y.numpy(), z=z.numpy())
