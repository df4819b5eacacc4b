"""Top-1 of GOT's logits and of REF's (PyTorch's) on LABELS, and whether
they are within MAX_POINTS percentage points of each other.
usage: top1-against.py GOT.npz REF.npz LABELS.npy MAX_POINTS"""
import sys

import numpy as np

got, ref = np.load(sys.argv[1]), np.load(sys.argv[2])
labels, max_points = np.load(sys.argv[3]), float(sys.argv[4])
g, r = got[got.files[0]], ref[ref.files[0]]
top_g = 100.0 * (g.argmax(1) == labels).mean()
top_r = 100.0 * (r.argmax(1) == labels).mean()
print(f"top-1 {top_g:.1f}% (PyTorch int8 {top_r:.1f}%), "
      f"{'within' if abs(top_g - top_r) <= max_points else 'NOT within'} "
      f"{max_points} points; same prediction on "
      f"{100.0 * (g.argmax(1) == r.argmax(1)).mean():.1f}%")
