"""Transformer and sequence test models, as users export them, with seeded
random weights (nothing is downloaded):
  vit         torchvision VisionTransformer in the DeiT-tiny shape (hidden 192,
              3 heads, MLP 768, patch 16), 2 layers on 64x64 images
  swin        torchvision SwinTransformer in the Swin-T shape (patch 4,
              window 7, heads 3/6), depths 2/2 and embed 48 on 112x112 images
  bert        a 2-layer BERT-style encoder written as HF BERT is: token and
              position embeddings from int64 ids, LayerNorm, GELU (Erf),
              explicit softmax attention with a key mask
  convnext    torchvision ConvNeXt blocks (7x7 depthwise, LayerNorm, GELU,
              layer scale), two stages on 64x64 images
  kws_lstm    a keyword-spotting LSTM: 2 layers, 40 MFCCs x 49 frames, 12 classes
  kws_gru     the same with a GRU
For each NAME it writes NAME.onnx (torch.onnx.export, opset 17),
NAME.traced.pt (torch.jit.trace), NAME.input.npz and NAME.ref.npz (PyTorch's
float32 output on that input).
usage: make_models.py [OUTDIR] [--only a,b]
"""
import argparse
import math
import os
import warnings

import numpy as np
import torch
import torch.nn as nn
import torchvision
from torchvision.models import convnext, swin_transformer

torch.manual_seed(0)


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.dh).permute(0, 2, 1, 3)

    def forward(self, x, mask_bias):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh)
        probs = torch.softmax(scores + mask_bias, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(x.shape[0], x.shape[1], -1)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


class TinyBert(nn.Module):
    """Token ids [1, 16] int64 in, pooled [1, 2] logits and the sequence out."""

    def __init__(self, vocab=1000, d=128, heads=4, ff=512, layers=2, seq=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, ff) for _ in range(layers))
        self.pool = nn.Linear(d, d)
        self.cls = nn.Linear(d, 2)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = self.ln(self.tok(ids) + self.pos(positions))
        # Padding (id 0) is masked out of every key, as BERT's extended mask.
        mask_bias = (ids == 0).float().unsqueeze(1).unsqueeze(2) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return self.cls(torch.tanh(self.pool(x[:, 0])))


class Kws(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(40, 64, num_layers=2, batch_first=True)
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


def models():
    def vit():
        return torchvision.models.VisionTransformer(
            image_size=64, patch_size=16, num_layers=2, num_heads=3,
            hidden_dim=192, mlp_dim=768, num_classes=10)

    def swin():
        return swin_transformer.SwinTransformer(
            patch_size=[4, 4], embed_dim=48, depths=[2, 2], num_heads=[3, 6],
            window_size=[7, 7], stochastic_depth_prob=0.0, num_classes=10)

    def convnext_blocks():
        cfg = [convnext.CNBlockConfig(32, 64, 2), convnext.CNBlockConfig(64, None, 2)]
        return convnext.ConvNeXt(cfg, stochastic_depth_prob=0.0, num_classes=10)

    return {
        "vit": (vit, lambda g: torch.randn(1, 3, 64, 64, generator=g)),
        "swin": (swin, lambda g: torch.randn(1, 3, 112, 112, generator=g)),
        "bert": (TinyBert, lambda g: torch.cat(
            [torch.randint(1, 1000, (1, 12), generator=g),
             torch.zeros(1, 4, dtype=torch.int64)], dim=1)),
        "convnext": (convnext_blocks, lambda g: torch.randn(1, 3, 64, 64, generator=g)),
        "kws_lstm": (lambda: Kws(nn.LSTM), lambda g: torch.randn(1, 49, 40, generator=g)),
        "kws_gru": (lambda: Kws(nn.GRU), lambda g: torch.randn(1, 49, 40, generator=g)),
    }


def perturb(model, gen):
    """Random LayerNorm affine and layer-scale parameters, so that folding
    them is tested (their defaults are 1 and 0, or 1e-6)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(1 + 0.2 * torch.randn(m.weight.shape, generator=gen))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=gen))
            if isinstance(m, convnext.CNBlock):
                m.layer_scale.copy_(0.5 + torch.rand(m.layer_scale.shape, generator=gen))
        for name, p in model.named_parameters():
            # ViT's head starts at zero; positional embeddings and the class
            # token near it.
            if "pos_embedding" in name or "class_token" in name or not p.any():
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))


def write(name, make, make_input, outdir):
    gen = torch.Generator().manual_seed(sum(map(ord, name)))
    torch.manual_seed(sum(map(ord, name)))
    model = make().eval()
    perturb(model, gen)
    x = make_input(gen)
    input_name = "ids" if x.dtype == torch.int64 else "x"
    with torch.no_grad():
        ref = model(x)
    base = os.path.join(outdir, name)
    np.savez(base + ".input.npz", **{input_name: x.numpy()})
    np.savez(base + ".ref.npz", output=ref.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), base + ".onnx", opset_version=17,
                          input_names=[input_name], output_names=["output"],
                          do_constant_folding=True)
        traced = torch.jit.trace(model, (x,), check_trace=False)
    traced.save(base + ".traced.pt")
    print(f"{name}: {tuple(x.shape)} {x.dtype} -> {tuple(ref.shape)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", nargs="?", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    for name, (make, make_input) in models().items():
        if not only or name in only:
            write(name, make, make_input, args.outdir)


if __name__ == "__main__":
    main()
