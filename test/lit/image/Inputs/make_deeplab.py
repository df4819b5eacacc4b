"""torchvision's DeepLabV3 (MobileNetV3-large backbone, 21 classes, seeded
random weights, BatchNorm statistics re-estimated on random images so the
activations stay in range) as ONNX (opset 17), a seeded input and PyTorch's
argmax mask (its classifier's last conv re-drawn at unit scale so that
the mask spreads over the classes).

    make_deeplab.py OUTDIR   -> deeplab.onnx, deeplab.input.npz (input),
                                deeplab.mask.npy (u8[1,H,W])
"""
import os
import sys

import numpy as np
import torch
import torchvision

SIZE = 128


class Scores(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    net = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=21, aux_loss=False)
    net.train()
    with torch.no_grad():
        for _ in range(4):
            net(torch.randn(2, 3, SIZE, SIZE))
    # The classifier's last conv at unit scale, so the mask uses many
    # classes rather than the one a random bias favours.
    final = net.classifier[-1]
    torch.nn.init.normal_(final.weight, 0.0, 1.0)
    torch.nn.init.zeros_(final.bias)
    model = Scores(net).eval()
    x = torch.randn(1, 3, SIZE, SIZE)
    with torch.no_grad():
        mask = model(x).argmax(dim=1).to(torch.uint8).numpy()
    torch.onnx.export(model, x, os.path.join(out, "deeplab.onnx"),
                      input_names=["input"], output_names=["out"],
                      opset_version=17)
    np.savez(os.path.join(out, "deeplab.input.npz"), input=x.numpy())
    np.save(os.path.join(out, "deeplab.mask.npy"), mask)


if __name__ == "__main__":
    main()
