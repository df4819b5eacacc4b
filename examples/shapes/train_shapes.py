#!/usr/bin/env python3
"""Trains the small CNN of examples/shapes/shapes_cnn.onnx on the generated
shapes dataset (shapes_data.py: 4000 training images, a held-out test split
of 1000) and exports it to ONNX with a dynamic batch. Deterministic (seeded,
one thread); takes about a minute on a CPU. Uses Debian's python3-torch.

    /usr/bin/python3 examples/shapes/train_shapes.py [OUT.onnx]
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shapes_data import CLASSES, make_split  # noqa: E402


def block(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
            nn.ReLU()]


class ShapesCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(*block(1, 16), nn.MaxPool2d(2),
                                      *block(16, 32), nn.MaxPool2d(2),
                                      *block(32, 32))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, len(CLASSES))

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


def accuracy(model, x, y):
    with torch.no_grad():
        return float((model(torch.from_numpy(x)).argmax(1).numpy() == y).mean())


def train(make_model, out, epochs, milestones, opset):
    """Trains make_model() on the training split (seeded, one thread, Adam,
    the learning rate divided by 10 at each milestone epoch) and exports it
    to ONNX with a dynamic batch."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    xtr, ytr = make_split("train")
    xte, yte = make_split("test")
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(0)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones, gamma=0.1)
    for epoch in range(epochs):
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
    torch.onnx.export(model, torch.from_numpy(xte[:1]), out, opset_version=opset,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}})
    print(f"wrote {out}: held-out top-1 {accuracy(model, xte, yte):.4f}")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "shapes_cnn.onnx")
    train(ShapesCNN, out, epochs=9, milestones=[5, 7], opset=13)


if __name__ == "__main__":
    main()
