#!/usr/bin/env python3
"""Two 3x3 convolutions that the kiln runtime runs on oneDNN's Winograd
kernel (64 -> 64 and 64 -> 96 channels at 32x32, stride 1), with PyTorch's
output as the reference.

    /usr/bin/python3 winograd_block.py OUTDIR

Writes OUTDIR/block.onnx, OUTDIR/input.npz and OUTDIR/ref.npz.
"""
import os
import sys

import numpy as np
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(64, 64, 3, padding=1)
        self.b = torch.nn.Conv2d(64, 96, 3, padding=1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(1, 64, 32, 32)
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(out, "block.onnx"),
                      input_names=["x"], output_names=["y"], opset_version=13)
    np.savez(os.path.join(out, "input.npz"), x=x.numpy())
    np.savez(os.path.join(out, "ref.npz"), y=y.numpy())


if __name__ == "__main__":
    main()
