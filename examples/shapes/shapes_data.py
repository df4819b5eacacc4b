"""A labelled image dataset generated on the spot (nothing downloaded): 16x16
grayscale pictures of 10 kinds of pattern (stripes, checkers, rings, boxes,
crosses, blobs, gradients), each at a random position, size, phase and
contrast, with Gaussian noise. The same seed gives the same arrays on every
machine (numpy's PCG64 stream).

    images, labels = make_split("train"|"calib"|"test")
"""
import numpy as np

SIZE = 16
CLASSES = ["hstripes", "vstripes", "diagonal", "checkers", "ring", "box",
           "cross", "blob", "hgradient", "vgradient"]
SPLITS = {"train": (4000, 1), "calib": (256, 2), "test": (1000, 3)}


def _pattern(kind, rng):
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64)
    cy, cx = rng.uniform(4, 12, 2)
    period = rng.uniform(3, 6)
    phase = rng.uniform(0, 2 * np.pi)
    r = np.hypot(y - cy, x - cx)
    size = rng.uniform(3, 6)
    if kind == 0:
        img = np.sin(2 * np.pi * y / period + phase)
    elif kind == 1:
        img = np.sin(2 * np.pi * x / period + phase)
    elif kind == 2:
        img = np.sin(2 * np.pi * (x + y) / period / 1.4 + phase)
    elif kind == 3:
        img = np.sign(np.sin(2 * np.pi * x / period + phase) *
                      np.sin(2 * np.pi * y / period + phase))
    elif kind == 4:
        img = np.where(np.abs(r - size) < 1.0, 1.0, -1.0)
    elif kind == 5:
        d = np.maximum(np.abs(y - cy), np.abs(x - cx))
        img = np.where(np.abs(d - size) < 1.0, 1.0, -1.0)
    elif kind == 6:
        img = np.where((np.abs(y - cy) < 1.0) | (np.abs(x - cx) < 1.0), 1.0, -1.0)
    elif kind == 7:
        img = 2.0 * np.exp(-(r / size) ** 2) - 1.0
    elif kind == 8:
        img = (x - SIZE / 2) / (SIZE / 2) * rng.choice([-1, 1])
    else:
        img = (y - SIZE / 2) / (SIZE / 2) * rng.choice([-1, 1])
    return img * rng.uniform(0.5, 1.5)


def make_split(name):
    count, seed = SPLITS[name]
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), count)
    images = np.stack([_pattern(int(k), rng) for k in labels])
    images += rng.normal(0.0, 1.1, images.shape)
    return images[:, None].astype(np.float32), labels.astype(np.int64)
