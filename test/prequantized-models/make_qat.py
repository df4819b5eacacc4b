"""A model trained with quantization-aware training, as only PyTorch can
give it: the shapes CNN (examples/shapes) trained in float for 3 epochs,
then 2 epochs of QAT with FX (`qnnpack` config: fake-quantized weights and
activations, learned ranges), converted and traced. Deterministic (seeded,
one thread), about a minute. Writes:
  shapes_qat.traced.pt   the quantized model, traced at batch 1000
  shapes_qat.onnx        torch.onnx.export of it (QDQ, opset 13)
  shapes_qat.image.npy   the held-out split's images [1000,1,16,16]
  shapes_qat.label.npy   and their labels
  shapes_qat.ref.npz     PyTorch's own int8 logits on it
usage: make_qat.py [OUTDIR]
"""
import os
import sys
import warnings

import numpy as np
import torch
from torch.ao.quantization import get_default_qat_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_qat_fx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "shapes"))
from shapes_data import make_split  # noqa: E402
from train_shapes import ShapesCNN, accuracy  # noqa: E402


def epochs(model, opt, xtr, ytr, count, gen):
    for _ in range(count):
        model.train()
        perm = torch.randperm(len(xtr), generator=gen)
        for i in range(0, len(xtr), 64):
            idx = perm[i:i + 64]
            loss = torch.nn.functional.cross_entropy(
                model(torch.from_numpy(xtr[idx])), torch.from_numpy(ytr[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else HERE
    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.backends.quantized.engine = "qnnpack"
    gen = torch.Generator().manual_seed(0)
    xtr, ytr = make_split("train")
    xte, yte = make_split("test")
    model = ShapesCNN()
    epochs(model, torch.optim.Adam(model.parameters(), lr=3e-3), xtr, ytr, 3, gen)
    model.eval()
    print(f"float: held-out top-1 {accuracy(model, xte, yte):.4f}")
    model.train()
    qat = prepare_qat_fx(model, get_default_qat_qconfig_mapping("qnnpack"),
                         (torch.from_numpy(xte[:1]),))
    epochs(qat, torch.optim.Adam(qat.parameters(), lr=3e-4), xtr, ytr, 2, gen)
    qat.eval()
    q = convert_fx(qat)
    x = torch.from_numpy(xte)
    with torch.no_grad():
        ref = q(x)
        traced = torch.jit.trace(q, x)
    traced.save(os.path.join(outdir, "shapes_qat.traced.pt"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(q, x, os.path.join(outdir, "shapes_qat.onnx"),
                          opset_version=13, input_names=["image"],
                          output_names=["logits"])
    np.save(os.path.join(outdir, "shapes_qat.image.npy"), xte)
    np.save(os.path.join(outdir, "shapes_qat.label.npy"), yte)
    np.savez(os.path.join(outdir, "shapes_qat.ref.npz"), output=ref.numpy())
    top1 = float((ref.argmax(1).numpy() == yte).mean())
    print(f"int8 (PyTorch, after QAT): held-out top-1 {top1:.4f}")


if __name__ == "__main__":
    main()
