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
from shapes_data import CLASSES, make_split  # noqa: E402
from train_shapes import accuracy  # noqa: E402


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
    torch.manual_seed(0)
    torch.set_num_threads(1)
    xtr, ytr = make_split("train")
    xte, yte = make_split("test")
    model = ShapesMobile()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[8, 11], gamma=0.1)
    for epoch in range(13):
        model.train()
        perm = torch.randperm(len(xtr), generator=gen)
        for i in range(0, len(xtr), 64):
            idx = perm[i:i + 64]
            loss = nn.functional.cross_entropy(model(torch.from_numpy(xtr[idx])),
                                               torch.from_numpy(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        model.eval()
        print(f"epoch {epoch}: train {accuracy(model, xtr, ytr):.4f} "
              f"test {accuracy(model, xte, yte):.4f}")
    model.eval()
    torch.onnx.export(model, torch.from_numpy(xte[:1]), out, opset_version=14,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}})
    print(f"wrote {out}: held-out top-1 {accuracy(model, xte, yte):.4f}")


if __name__ == "__main__":
    main()
