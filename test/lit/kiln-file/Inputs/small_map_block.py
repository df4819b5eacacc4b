#!/usr/bin/env python3
"""A ResNet-50 layer4 bottleneck block, scaled in width to keep the test
fast but not in the size of its weights (each convolution holds over 1 MiB
of them), on a 7x7 map: the convolutions the kiln runtime runs on its panel
kernel. Its entry convolution is 3x3 stride 2 from 14x14, the shortcut is a
1x1 convolution whose sum with the block's last convolution is followed by
a relu (a residual add the runtime folds into that convolution). PyTorch's
output is the reference.

    /usr/bin/python3 small_map_block.py OUTDIR

Writes OUTDIR/block.onnx, input.npz and ref.npz (export_block.py).
"""
import sys

import torch

from export_block import export


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.entry = torch.nn.Conv2d(192, 256, 3, stride=2, padding=1)
        self.reduce = torch.nn.Conv2d(256, 320, 3, padding=1)
        self.expand = torch.nn.Conv2d(320, 1280, 1)
        self.shortcut = torch.nn.Conv2d(256, 1280, 1, bias=False)

    def forward(self, x):
        e = torch.relu(self.entry(x))
        r = torch.relu(self.reduce(e))
        return torch.relu(self.expand(r) + self.shortcut(e))


def main():
    torch.manual_seed(0)
    export(Block(), torch.randn(1, 192, 14, 14), sys.argv[1])


if __name__ == "__main__":
    main()
