"""A briefly trained variant of make_models.py's BERT-style encoder, for
checking int8 accuracy against fp32 on a task rather than on random
weights. The task is synthetic (nothing is downloaded): token ids 1..999,
padded with 0 to 16; the label says whether any of the keyword tokens 1..50
occurs (about half the sequences). Training is seeded and single-threaded.
Writes to OUTDIR: bert_task.onnx (opset 17, ids int64 [512, 16], logits
[512, 2]), bert_task.eval.npz (512 held-out sequences), bert_task.labels.npy,
calib/c0..c3.npy (training-distribution batches), and prints PyTorch's
accuracy on the held-out set.
usage: train_bert_task.py OUTDIR"""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import TinyBert  # noqa: E402

BATCH, SEQ, KEYWORDS = 512, 16, 50


def sample(gen, n):
    ids = torch.randint(1, 1000, (n, SEQ), generator=gen)
    lengths = torch.randint(8, SEQ + 1, (n, 1), generator=gen)
    ids = torch.where(torch.arange(SEQ).unsqueeze(0) < lengths, ids, 0)
    labels = ((ids >= 1) & (ids <= KEYWORDS)).any(dim=1).long()
    return ids, labels


def main():
    outdir = sys.argv[1]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(1)
    model = TinyBert()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    # About a minute on one core; 95% held-out accuracy.
    for _ in range(220):
        ids, labels = sample(gen, 32)
        opt.zero_grad()
        loss_fn(model(ids), labels).backward()
        opt.step()
    model.eval()
    held = torch.Generator().manual_seed(2)
    ids, labels = sample(held, BATCH)
    with torch.no_grad():
        acc = (model(ids).argmax(dim=1) == labels).float().mean().item()
    os.makedirs(os.path.join(outdir, "calib"), exist_ok=True)
    np.savez(os.path.join(outdir, "bert_task.eval.npz"), ids=ids.numpy())
    np.save(os.path.join(outdir, "bert_task.labels.npy"), labels.numpy())
    calib = torch.Generator().manual_seed(3)
    for i in range(4):
        np.save(os.path.join(outdir, "calib", f"c{i}.npy"), sample(calib, BATCH)[0].numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (ids,), os.path.join(outdir, "bert_task.onnx"),
                          opset_version=17, input_names=["ids"],
                          output_names=["output"], do_constant_folding=True)
    print(f"pytorch accuracy {100 * acc:.1f}")


if __name__ == "__main__":
    main()
