"""Exports a test's PyTorch block for the kiln-file lit tests: OUTDIR/block.onnx
(input "x", output "y", opset 13), OUTDIR/input.npz and PyTorch's output as
OUTDIR/ref.npz, the reference kiln's output must match."""
import os

import numpy as np
import torch


def export(model, x, out):
    model = model.eval()
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, os.path.join(out, "block.onnx"),
                      input_names=["x"], output_names=["y"], opset_version=13)
    np.savez(os.path.join(out, "input.npz"), x=x.numpy())
    np.savez(os.path.join(out, "ref.npz"), y=y.numpy())
