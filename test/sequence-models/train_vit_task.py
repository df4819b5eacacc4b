"""A briefly trained ViT (torchvision's VisionTransformer, 2 layers, 3 heads
as DeiT-tiny, at half its width: hidden 96, MLP 384, patch 8 on 32x32
images, 16 patches and a class token), for checking int8 accuracy against
fp32 on a task. The task is synthetic (nothing is downloaded): Gaussian
noise (sigma 0.5) with one square of 4..8 pixels at a random place, shifted
by +1 or -1 in each channel; the label is the square's colour, one of 8.
The colour sits in one or two of the 16 patches, so the class token has to
attend to them. About a minute on one core; about 94% held-out accuracy.
Writes vit_task.* to OUTDIR (task_training.py: x f32 [512, 3, 32, 32],
logits [512, 8]).
usage: train_vit_task.py OUTDIR"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from task_training import train_and_write  # noqa: E402

SIZE = 32


def sample(gen, n):
    x = 0.5 * torch.randn(n, 3, SIZE, SIZE, generator=gen)
    colour = torch.randint(0, 8, (n,), generator=gen)
    signs = torch.stack([(colour >> c) & 1 for c in range(3)], 1).float() * 2 - 1
    size = torch.randint(4, 9, (n,), generator=gen)
    corner = torch.randint(0, SIZE - 8 + 1, (n, 2), generator=gen)
    for i in range(n):
        r, c, s = corner[i, 0], corner[i, 1], size[i]
        x[i, :, r:r + s, c:c + s] += signs[i].view(3, 1, 1)
    return x, colour


def main():
    torch.manual_seed(0)
    model = torchvision.models.VisionTransformer(
        image_size=SIZE, patch_size=8, num_layers=2, num_heads=3,
        hidden_dim=96, mlp_dim=384, num_classes=8)
    train_and_write(sys.argv[1], "vit_task", model, sample, "x", steps=300, lr=1e-3)


if __name__ == "__main__":
    main()
