#!/usr/bin/env python3
"""TorchScript fixtures: scaled-down torchvision architectures, traced and scripted.

    /usr/bin/python3 test/torchscript-models/make_fixtures.py [OUTDIR]
    /usr/bin/python3 test/torchscript-models/make_fixtures.py --full OUTDIR

Uses Debian's python3-torch and python3-torchvision; weights are random
(seeded) and nothing is downloaded. Each architecture is built from
torchvision's own modules (blocks, forward code), only narrower and shallower,
so the graphs hold the same ops as the full models. For each NAME it writes
    NAME.traced.pt / NAME.scripted.pt   torch.jit.save of trace / script
    NAME.input.npz                      a seeded input, keyed 'x'
    NAME.ref.npz                        PyTorch's outputs ('output', or the
                                        dict keys for segmentation models)
    NAME.shape                          the input shape, e.g. 1x3x64x64

--full writes the full-size torchvision models (MobileNetV2, ResNet-50,
EfficientNet-B0, DeepLabV3-ResNet50 at 520x520; ~100-170 MB each), which are
measured locally and never committed.
"""
import argparse
import collections
import os

import numpy as np
import torch
import torch.nn as nn
import torchvision
from torchvision.models import resnet, shufflenetv2, squeezenet
from torchvision.models.segmentation import deeplabv3
from torchvision.models._utils import IntermediateLayerGetter


class SmallResNet(resnet.ResNet):
    """torchvision's ResNet (its _make_layer and _forward_impl) at widths
    8/16/32/64 instead of 64/128/256/512."""

    def __init__(self, block, layers, widths=(8, 16, 32, 64), num_classes=10,
                 replace_stride_with_dilation=(False, False, False)):
        nn.Module.__init__(self)
        self._norm_layer = nn.BatchNorm2d
        self.inplanes = widths[0]
        self.dilation = 1
        self.groups = 1
        self.base_width = 64
        self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        dil = replace_stride_with_dilation
        self.layer1 = self._make_layer(block, widths[0], layers[0])
        self.layer2 = self._make_layer(block, widths[1], layers[1], 2, dilate=dil[0])
        self.layer3 = self._make_layer(block, widths[2], layers[2], 2, dilate=dil[1])
        self.layer4 = self._make_layer(block, widths[3], layers[3], 2, dilate=dil[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[3] * block.expansion, num_classes)


def small_squeezenet():
    """SqueezeNet 1.1's layout with torchvision's Fire modules at 1/4 width."""
    m = squeezenet.SqueezeNet(version="1_1", num_classes=10)
    Fire = squeezenet.Fire
    m.features = nn.Sequential(
        nn.Conv2d(3, 16, 3, 2), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(16, 4, 16, 16), Fire(32, 4, 16, 16),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(32, 8, 32, 32), Fire(64, 8, 32, 32),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        Fire(64, 12, 48, 48), Fire(96, 12, 48, 48),
        Fire(96, 16, 64, 64), Fire(128, 16, 64, 64))
    m.classifier[1] = nn.Conv2d(128, 10, 1)
    return m


def small_deeplabv3():
    """torchvision's DeepLabV3 (ASPP head, bilinear upsampling to the input
    size) on a small dilated bottleneck ResNet backbone, as in
    deeplabv3_resnet50."""
    backbone = SmallResNet(resnet.Bottleneck, [1, 1, 1, 1], widths=(4, 8, 8, 16),
                           replace_stride_with_dilation=(False, True, True))
    backbone = IntermediateLayerGetter(backbone, {"layer4": "out"})
    head = deeplabv3.DeepLabHead(64, 5)  # 16 * Bottleneck.expansion
    # DeepLabHead's ASPP has 256 channels; narrow it to keep the file small.
    head[0] = deeplabv3.ASPP(64, [12, 24, 36], out_channels=16)
    head[1] = nn.Conv2d(16, 16, 3, padding=1, bias=False)
    head[2] = nn.BatchNorm2d(16)
    head[4] = nn.Conv2d(16, 5, 1)
    return deeplabv3.DeepLabV3(backbone, head, None)


def fixtures():
    tv = torchvision.models
    return {
        "mobilenet_v2": (lambda: tv.mobilenet_v2(width_mult=0.25, num_classes=10), 64),
        "mobilenet_v3_small": (lambda: tv.mobilenet_v3_small(width_mult=0.25, num_classes=10), 64),
        "resnet18": (lambda: SmallResNet(resnet.BasicBlock, [2, 2, 2, 2]), 64),
        "shufflenet_v2": (lambda: shufflenetv2.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128],
                                                            num_classes=10), 64),
        "squeezenet": (small_squeezenet, 64),
        "deeplabv3": (small_deeplabv3, 64),
    }


def full_models():
    tv = torchvision.models
    return {
        "mobilenet_v2": (lambda: tv.mobilenet_v2(), 224),
        "resnet50": (lambda: tv.resnet50(), 224),
        "efficientnet_b0": (lambda: tv.efficientnet_b0(), 224),
        "deeplabv3_resnet50": (lambda: tv.segmentation.deeplabv3_resnet50(
            weights=None, weights_backbone=None, aux_loss=False), 520),
    }


def randomize_bn(model, gen):
    """Non-trivial running statistics, so BatchNorm folding is really tested."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def outputs_dict(y):
    if isinstance(y, (dict, collections.OrderedDict)):
        return {k: v.numpy() for k, v in y.items()}
    return {"output": y.numpy()}


def write(name, build, size, outdir, variants):
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = build().eval()
    randomize_bn(model, gen)
    x = torch.randn(1, 3, size, size, generator=gen)
    with torch.no_grad():
        ref = outputs_dict(model(x))
    if "traced" in variants:
        traced = torch.jit.trace(model, x, strict=False)
        traced.save(os.path.join(outdir, name + ".traced.pt"))
    if "scripted" in variants:
        scripted = torch.jit.script(model)
        scripted.save(os.path.join(outdir, name + ".scripted.pt"))
    np.savez(os.path.join(outdir, name + ".input.npz"), x=x.numpy())
    np.savez(os.path.join(outdir, name + ".ref.npz"), **ref)
    with open(os.path.join(outdir, name + ".shape"), "w") as f:
        f.write("1x3x%dx%d\n" % (size, size))
    print("wrote", name, ", ".join(sorted(ref)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--full", action="store_true", help="full-size torchvision models")
    ap.add_argument("--only", help="comma-separated subset of the models")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(1)
    table = full_models() if args.full else fixtures()
    names = args.only.split(",") if args.only else sorted(table)
    for name in names:
        build, size = table[name]
        write(name, build, size, args.outdir, ("traced", "scripted"))


if __name__ == "__main__":
    main()
