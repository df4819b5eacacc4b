"""The trained shapes model's test images as 8-bit grayscale PNGs (pixel =
128 + 25 x, clipped; --mean 128 --std 25 undoes it), and the calibration
split as floats.

    shapes_pngs.py OUTDIR COUNT  -> OUTDIR/shape-I.png (I < COUNT),
                                    labels.npy, calib.npy
    shapes_pngs.py --top1 OUTDIR COUNT NAME...  prints each NAME's top-1 over
                                    OUTDIR/NAME-I.npz
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "examples", "shapes"))


def write(out, count):
    from PIL import Image
    from shapes_data import make_split
    x, labels = make_split("test")
    for i in range(count):
        px = np.clip(np.rint(x[i, 0] * 25 + 128), 0, 255).astype(np.uint8)
        Image.fromarray(px).save(os.path.join(out, f"shape-{i}.png"))
    np.save(os.path.join(out, "labels.npy"), labels[:count])
    calib, _ = make_split("calib")
    np.save(os.path.join(out, "calib.npy"), calib)


def top1(out, count, names):
    labels = np.load(os.path.join(out, "labels.npy"))
    scores = {}
    for name in names:
        hits = sum(int(np.load(os.path.join(out, f"{name}-{i}.npz"))["logits"].argmax() == labels[i])
                   for i in range(count))
        scores[name] = 100.0 * hits / count
    base = scores[names[0]]
    for name in names:
        d = scores[name] - base
        print(f"{name}: top-1 {scores[name]:.1f}% ({d:+.1f} points), "
              f"within 1 point: {'yes' if abs(d) <= 1.0 else 'NO'}")


if __name__ == "__main__":
    if sys.argv[1] == "--top1":
        top1(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        write(sys.argv[1], int(sys.argv[2]))
