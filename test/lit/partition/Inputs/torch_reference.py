"""Writes seeded inputs for a TorchScript model and PyTorch's own outputs
for them (the independent reference the partitioned files are checked
against): torch_reference.py MODEL.pt SHAPE IN.npz REF.npz, SHAPE as 1x3x224x224."""
import sys

import numpy as np
import torch

model, shape, inputs, reference = sys.argv[1:5]
m = torch.jit.load(model)
m.eval()
x = torch.from_numpy(
    np.random.default_rng(7).standard_normal(
        [int(d) for d in shape.split("x")]).astype(np.float32))
with torch.no_grad():
    y = m(x)
np.savez(inputs, x=x.numpy())
np.savez(reference, output=y.numpy())
