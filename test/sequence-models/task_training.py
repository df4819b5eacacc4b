"""Shared by the train_*_task.py scripts: trains a model briefly on a
synthetic task (seeded, single-threaded) and writes what the int8 accuracy
tests read: NAME.onnx (opset 17, batch BATCH), NAME.eval.npz (held-out
inputs), NAME.labels.npy, calib/c0..c3.npy (training-distribution batches);
prints PyTorch's held-out accuracy."""
import os
import warnings

import numpy as np
import torch
import torch.nn as nn

BATCH = 512


def train_and_write(outdir, name, model, sample, input_name, steps, lr):
    """sample(generator, n) -> (inputs, labels). The global seed must be set
    before the model is built (its initial weights)."""
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(steps):
        x, labels = sample(gen, 32)
        opt.zero_grad()
        loss_fn(model(x), labels).backward()
        opt.step()
    model.eval()
    x, labels = sample(torch.Generator().manual_seed(2), BATCH)
    with torch.no_grad():
        acc = (model(x).argmax(dim=1) == labels).float().mean().item()
    os.makedirs(os.path.join(outdir, "calib"), exist_ok=True)
    np.savez(os.path.join(outdir, name + ".eval.npz"), **{input_name: x.numpy()})
    np.save(os.path.join(outdir, name + ".labels.npy"), labels.numpy())
    calib = torch.Generator().manual_seed(3)
    for i in range(4):
        np.save(os.path.join(outdir, "calib", f"c{i}.npy"), sample(calib, BATCH)[0].numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), os.path.join(outdir, name + ".onnx"),
                          opset_version=17, input_names=[input_name],
                          output_names=["output"], do_constant_folding=True)
    print(f"pytorch accuracy {100 * acc:.1f}")
