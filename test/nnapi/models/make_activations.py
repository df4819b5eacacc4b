#!/usr/bin/env python3
"""Writes activations.onnx and activations.input.npz beside this file: a
small seeded CNN whose int8 form has one layer of each activation the
NNAPI lowering maps to int8 operations of its own (sigmoid -> LOGISTIC,
tanh -> TANH, SiLU -> LOGISTIC + MUL, leaky ReLU -> PRELU, a clamp to
[-1.5, 2.5] fused into a convolution -> the output's saturation, a clamp
to [0.2, 0.8] whose calibrated range reaches 0 -> MAXIMUM and MINIMUM,
hard sigmoid -> MUL + ADD,
hardswish -> HARD_SWISH at level 30 and through float at 29), for
kiln-nnapi-e2e's per-layer bar.

    /usr/bin/python3 test/nnapi/models/make_activations.py
"""
import os

import numpy as np
import torch
import torch.nn as nn


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(8, 8, 3, padding=1) for _ in range(7))

    def forward(self, x):
        c = self.convs
        x = torch.clamp(torch.sigmoid(c[0](x)), 0.2, 0.8)
        x = torch.tanh(c[1](x))
        y = c[2](x)
        x = y * torch.sigmoid(y)
        x = nn.functional.leaky_relu(c[3](x), 0.1)
        x = torch.clamp(c[4](x), -1.5, 2.5)
        x = nn.functional.hardsigmoid(c[5](x))
        return nn.functional.hardswish(c[6](x))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    model = Activations().eval()
    x = torch.from_numpy(np.random.default_rng(0).uniform(-3, 3, (4, 8, 8, 8))
                         .astype(np.float32))
    torch.onnx.export(model, (x,), os.path.join(here, "activations.onnx"),
                      opset_version=14, input_names=["x"], output_names=["y"])
    np.savez(os.path.join(here, "activations.input.npz"), x=x.numpy())


if __name__ == "__main__":
    main()
