#!/usr/bin/env python3
"""Two 3x3 convolutions that the kiln runtime runs on oneDNN's Winograd
kernel (64 -> 64 and 64 -> 96 channels at 32x32, stride 1), with PyTorch's
output as the reference.

    /usr/bin/python3 winograd_block.py OUTDIR

Writes OUTDIR/block.onnx, input.npz and ref.npz (export_block.py).
"""
import sys

import torch

from export_block import export


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(64, 64, 3, padding=1)
        self.b = torch.nn.Conv2d(64, 96, 3, padding=1)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def main():
    torch.manual_seed(0)
    export(Block(), torch.randn(1, 64, 32, 32), sys.argv[1])


if __name__ == "__main__":
    main()
