"""Top-1 accuracy of each LOGITS.npz on the held-out shapes labels, and the
gap of each to the first (fp32), in points. usage: top1.py LABELS.npy NAME=LOGITS.npz..."""
import sys

import numpy as np

labels = np.load(sys.argv[1])
base = None
for arg in sys.argv[2:]:
    name, path = arg.split("=", 1)
    acc = 100.0 * float((np.load(path)["logits"].argmax(1) == labels).mean())
    base = acc if base is None else base
    print(f"{name}: top-1 {acc:.1f}% ({acc - base:+.1f} points vs fp32), "
          f"within 1 point: {'yes' if abs(acc - base) <= 1.0 else 'NO'}")
