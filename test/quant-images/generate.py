#!/usr/bin/env python3
"""Writes the calibration-image corpus used by test/unit/quant and test/lit/quant.

Good images have known pixels (pixel (y, x) = (10x, 20y, 7) for RGB), and
references for the preprocessing are computed with PyTorch. Malformed files
each break one thing a decoder must survive. Run with Debian's /usr/bin/python3
(python3-pil, python3-numpy, python3-torch); the outputs are committed.
"""
import io
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
good_dir = os.path.join(out, "good")
bad_dir = os.path.join(out, "malformed")
os.makedirs(good_dir, exist_ok=True)
os.makedirs(bad_dir, exist_ok=True)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def pattern(h, w):
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([10 * x, 20 * y, np.full_like(x, 7)], axis=-1).astype(np.uint8)


def png_bytes(img, mode=None):
    b = io.BytesIO()
    Image.fromarray(img, mode).save(b, format="PNG")
    return b.getvalue()


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_header_only(w, h):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)


rgb = pattern(6, 8)
write(os.path.join(good_dir, "a-8x6.png"), png_bytes(rgb))
write(os.path.join(good_dir, "b-8x6-gray.png"), png_bytes(rgb[:, :, 1].copy(), "L"))
rgba = np.concatenate([rgb, np.full((6, 8, 1), 128, np.uint8)], axis=-1)
write(os.path.join(good_dir, "c-8x6-rgba.png"), png_bytes(rgba, "RGBA"))
b = io.BytesIO()
Image.fromarray(rgb).save(b, format="JPEG", quality=95)
write(os.path.join(good_dir, "d-8x6.jpg"), b.getvalue())
write(os.path.join(out, "other-10x6.png"), png_bytes(pattern(6, 10)))

# References for preprocessing a-8x6.png, from PyTorch.
import torch
import torch.nn.functional as F

x = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]
np.save(os.path.join(out, "a-8x6.resize-4x5.npy"),
        F.interpolate(x, size=(4, 5), mode="bilinear", align_corners=False)[0].numpy())
np.save(os.path.join(out, "a-8x6.resize-9x13.npy"),
        F.interpolate(x, size=(9, 13), mode="bilinear", align_corners=False)[0].numpy())

valid_png = png_bytes(rgb)
write(os.path.join(bad_dir, "empty.png"), b"")
write(os.path.join(bad_dir, "text.jpg"), b"this is not an image\n")
write(os.path.join(bad_dir, "truncated.png"), valid_png[:60])
jpg = open(os.path.join(good_dir, "d-8x6.jpg"), "rb").read()
write(os.path.join(bad_dir, "truncated.jpg"), jpg[: len(jpg) // 3])
write(os.path.join(bad_dir, "huge-dims.png"), png_header_only(100000, 100000) + png_chunk(b"IEND", b""))
write(os.path.join(bad_dir, "zero-width.png"), png_header_only(0, 6) + png_chunk(b"IEND", b""))
bad_idat = png_header_only(8, 6) + png_chunk(b"IDAT", b"\x78\x9c garbage, not deflate") + png_chunk(b"IEND", b"")
write(os.path.join(bad_dir, "bad-idat.png"), bad_idat)
b = io.BytesIO()
Image.fromarray(rgb).save(b, format="GIF")
write(os.path.join(bad_dir, "gif-named.png"), b.getvalue())
write(os.path.join(bad_dir, "jpeg-marker-only.jpg"), b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 8)
