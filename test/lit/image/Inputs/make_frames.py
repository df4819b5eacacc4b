"""Frames and PyTorch's references for the image-input tests.

    make_frames.py OUTDIR

Writes, for the 64x64 model examples/models/resnet_small.onnx:
  small.png (64x64) and large.png (160x120): smooth seeded RGB images;
  small.pre.npy, large.pre.npy: PyTorch's own pipeline up to the model
    (ToTensor, F.interpolate(bilinear, align_corners=False) to 64x64 for the
    large frame, Normalize with ImageNet's mean and std), f32[1,3,64,64];
  small.rgb.npy: the small frame as u8[1,64,64,3], and small.norm.npy the
    same normalization without a resize (the folded model's exact input);
  chroma.rgb.npy / chroma.nv21.npy: an RGB image whose chroma is constant
    over each 2x2 block, and the nv21 frame made from it with the
    BT.601 full-range matrix (numerics/PixelFormats.h), 1x48x64;
  chroma.ref.npy: that RGB image as float NCHW (what both should decode to).
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def smooth_image(rng, h, w):
    """Low-frequency color noise, so that resizing matters but aliasing does
    not dominate."""
    coarse = torch.from_numpy(rng.uniform(0, 255, (1, 3, h // 8, w // 8)))
    img = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=False)
    img = img + torch.from_numpy(rng.normal(0, 6, (1, 3, h, w)))
    return img.clamp(0, 255).round().to(torch.uint8)[0].permute(1, 2, 0).numpy()


def pipeline(rgb, size):
    """torchvision's ToTensor, a tensor resize, Normalize: f32[1,3,H,W]."""
    x = torch.from_numpy(rgb).permute(2, 0, 1).float().div(255).unsqueeze(0)
    if x.shape[2:] != size:
        x = F.interpolate(x, size=size, mode="bilinear", align_corners=False)
    x = (x - torch.from_numpy(MEAN).view(1, 3, 1, 1)) / torch.from_numpy(STD).view(1, 3, 1, 1)
    return x.numpy().astype(np.float32)


def to_nv21(rgb):
    """BT.601 full range; U and V averaged over each 2x2 block."""
    r, g, b = [rgb[..., i].astype(np.float64) for i in range(3)]
    y = 0.299 * r + 0.587 * g + 0.114 * b
    u = -0.168736 * r - 0.331264 * g + 0.5 * b + 128
    v = 0.5 * r - 0.418688 * g - 0.081312 * b + 128
    h, w = y.shape
    pool = lambda c: c.reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
    vu = np.stack([pool(v), pool(u)], axis=-1).reshape(h // 2, w)
    planes = np.concatenate([y, vu], axis=0)
    return np.clip(np.rint(planes), 0, 255).astype(np.uint8)


def from_yuv(y, u, v):
    r = y + 1.402 * (v - 128)
    g = y - 0.344136 * (u - 128) - 0.714136 * (v - 128)
    b = y + 1.772 * (u - 128)
    return np.clip(np.stack([r, g, b], axis=-1), 0, 255)


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(7)
    small, large = smooth_image(rng, 64, 64), smooth_image(rng, 120, 160)
    Image.fromarray(small).save(os.path.join(out, "small.png"))
    Image.fromarray(large).save(os.path.join(out, "large.png"))
    np.save(os.path.join(out, "small.pre.npy"), pipeline(small, (64, 64)))
    np.save(os.path.join(out, "large.pre.npy"), pipeline(large, (64, 64)))
    np.save(os.path.join(out, "small.rgb.npy"), small[None])
    np.save(os.path.join(out, "small.norm.npy"), pipeline(small, (64, 64)))

    # An RGB image with one chroma per 2x2 block: random luma at full
    # resolution, random chroma at half, decoded and rounded to bytes.
    h, w = 48, 64
    yy = rng.uniform(60, 195, (h, w))
    uu = np.repeat(np.repeat(rng.uniform(108, 148, (h // 2, w // 2)), 2, 0), 2, 1)
    vv = np.repeat(np.repeat(rng.uniform(108, 148, (h // 2, w // 2)), 2, 0), 2, 1)
    rgb = np.rint(from_yuv(yy, uu, vv)).astype(np.uint8)
    np.save(os.path.join(out, "chroma.rgb.npy"), rgb[None])
    np.save(os.path.join(out, "chroma.nv21.npy"), to_nv21(rgb)[None, :, :, None])
    np.save(os.path.join(out, "chroma.ref.npy"),
            rgb.transpose(2, 0, 1)[None].astype(np.float32))


if __name__ == "__main__":
    main()
