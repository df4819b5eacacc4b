#!/usr/bin/env python3
"""Exports the example CNNs to ONNX, with PyTorch's outputs as references.

    /usr/bin/python3 examples/make_examples.py [OUTDIR]          # the small models
    /usr/bin/python3 examples/make_examples.py --resnet50 OUTDIR # a ~100 MB model

Uses Debian's python3-torch and python3-onnx only; weights are random (seeded),
nothing is downloaded. For each model NAME it writes:
    NAME.onnx         the model (opset 13, fixed input shape)
    NAME.input.npz    a seeded input, keyed by the ONNX input name
    NAME.ref.npz      PyTorch's outputs for that input, keyed by output name
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn


def conv_bn(cin, cout, k=3, stride=1, groups=1, act=nn.ReLU6):
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
              nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act(inplace=True))
    return nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 linear project."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            conv_bn(cin, hidden, 1),
            conv_bn(hidden, hidden, 3, stride, groups=hidden),
            conv_bn(hidden, cout, 1, act=None))

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2Small(nn.Module):
    """MobileNetV2 at width 0.25 with fewer blocks: same op mix as the real one."""

    def __init__(self, num_classes=10):
        super().__init__()
        cfg = [(1, 8, 1, 1), (6, 8, 2, 2), (6, 16, 2, 2), (6, 24, 1, 2), (6, 32, 1, 1)]
        layers = [conv_bn(3, 8, 3, 2)]
        cin = 8
        for t, c, n, s in cfg:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(conv_bn(cin, 64, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, num_classes))

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = conv_bn(cin, cout, 3, stride, act=nn.ReLU)
        self.conv2 = conv_bn(cout, cout, 3, 1, act=None)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = conv_bn(cin, cout, 1, stride, act=None)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        return self.relu(self.conv2(self.conv1(x)) + idt)


class ResNetSmall(nn.Module):
    """A ResNet-18-style network (stem, max pool, 4 stages of basic blocks)."""

    def __init__(self, widths=(16, 24, 32, 64), blocks=(2, 2, 2, 2), num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, widths[0], 7, 2, act=nn.ReLU),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], widths[0]
        for i, (w, n) in enumerate(zip(widths, blocks)):
            for j in range(n):
                layers.append(BasicBlock(cin, w, 2 if (j == 0 and i > 0) else 1))
                cin = w
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.pool(self.layers(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride):
        super().__init__()
        cout = mid * 4
        self.body = nn.Sequential(conv_bn(cin, mid, 1, act=nn.ReLU),
                                  conv_bn(mid, mid, 3, stride, act=nn.ReLU),
                                  conv_bn(mid, cout, 1, act=None))
        self.down = None
        if stride != 1 or cin != cout:
            self.down = conv_bn(cin, cout, 1, stride, act=None)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        return self.relu(self.body(x) + idt)


class ResNet50(nn.Module):
    """ResNet-50's architecture (25.6 M parameters, ~100 MB of f32 weights)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 64, 7, 2, act=nn.ReLU), nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for i, (mid, n) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
            for j in range(n):
                layers.append(Bottleneck(cin, mid, 2 if (j == 0 and i > 0) else 1))
                cin = mid * 4
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.pool(self.layers(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


def randomize_bn(model, gen):
    """Gives BatchNorm non-trivial statistics, as a trained model has."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def export(model, name, shape, outdir, seed):
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    randomize_bn(model, gen)
    model.eval()
    x = torch.randn(*shape, generator=gen)
    path = os.path.join(outdir, name + ".onnx")
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["logits"],
                      opset_version=13, do_constant_folding=False)
    with torch.no_grad():
        y = model(x)
    np.savez(os.path.join(outdir, name + ".input.npz"), input=x.numpy())
    np.savez(os.path.join(outdir, name + ".ref.npz"), logits=y.numpy())
    print(f"{path}: {os.path.getsize(path)} bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", nargs="?", default=os.path.join(os.path.dirname(__file__), "models"))
    ap.add_argument("--resnet50", action="store_true", help="export the ResNet-50-sized model only")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(1)
    if args.resnet50:
        export(ResNet50(), "resnet50", (1, 3, 224, 224), args.outdir, seed=50)
        return
    export(MobileNetV2Small(), "mobilenetv2_small", (1, 3, 64, 64), args.outdir, seed=2)
    export(ResNetSmall(), "resnet_small", (1, 3, 64, 64), args.outdir, seed=18)


if __name__ == "__main__":
    main()
