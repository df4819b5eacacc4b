#!/usr/bin/env python3
"""Trains examples/shapes/shapes_mobile.onnx: the shapes CNN's task
(shapes_data.py) with the blocks of MobileNetV3 and EfficientNet, so that
int8 accuracy on them is measured on a trained model: a hardswish stem, an
inverted residual with a depthwise conv and a squeeze-and-excitation gate
(hardsigmoid), and a SiLU stage (exported as Sigmoid then Mul). Deterministic
(seeded, one thread); about a minute on a CPU. Uses Debian's python3-torch.

    /usr/bin/python3 examples/shapes/train_shapes_mobile.py [OUT.onnx]
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shapes_data import CLASSES  # noqa: E402
from train_shapes import train  # noqa: E402


class SqueezeExcite(nn.Module):
    def __init__(self, c, r):
        super().__init__()
        self.reduce = nn.Conv2d(c, r, 1)
        self.expand = nn.Conv2d(r, c, 1)

    def forward(self, x):
        g = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * nn.functional.hardsigmoid(self.expand(torch.relu(self.reduce(g))))


class ShapesMobile(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.Hardswish())
        self.pool = nn.MaxPool2d(2)
        # Inverted residual: expand, depthwise, squeeze-and-excite, project.
        self.expand = nn.Sequential(nn.Conv2d(16, 48, 1, bias=False),
                                    nn.BatchNorm2d(48), nn.Hardswish())
        self.depthwise = nn.Sequential(
            nn.Conv2d(48, 48, 3, padding=1, groups=48, bias=False),
            nn.BatchNorm2d(48), nn.Hardswish())
        self.se = SqueezeExcite(48, 12)
        self.project = nn.Sequential(nn.Conv2d(48, 16, 1, bias=False),
                                     nn.BatchNorm2d(16))
        self.silu = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(32), nn.SiLU())
        self.fc = nn.Linear(32, len(CLASSES))

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = x + self.project(self.se(self.depthwise(self.expand(x))))
        x = self.silu(self.pool(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "shapes_mobile.onnx")
    train(ShapesMobile, out, epochs=13, milestones=[8, 11], opset=14)


if __name__ == "__main__":
    main()
