"""Calibration samples for examples/build/kiln.toml, made on the spot
(nothing downloaded): DIR/shapes/NN.npy, 32 images of the shapes dataset's
calibration split, and DIR/mobilenet/NN.npy, 16 seeded normal inputs for the
random-weight MobileNetV2.

    /usr/bin/python3 examples/build/make_calib.py DIR
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "shapes"))
from shapes_data import make_split  # noqa: E402


def main(out):
    images = make_split("calib")[0]
    os.makedirs(os.path.join(out, "shapes"), exist_ok=True)
    for i in range(32):
        np.save(os.path.join(out, "shapes", "%02d.npy" % i), images[i:i + 1])
    rng = np.random.default_rng(0)
    os.makedirs(os.path.join(out, "mobilenet"), exist_ok=True)
    for i in range(16):
        x = rng.standard_normal((1, 3, 64, 64)).astype(np.float32)
        np.save(os.path.join(out, "mobilenet", "%02d.npy" % i), x)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_calib.py DIR")
    main(sys.argv[1])
