"""The hand-made box_nms case of box-nms.kir: writes its inputs (OUT.npz),
or prints a run's outputs (print RESULT.npz) row by row."""
import sys

import numpy as np

if sys.argv[1] == "print":
    r = np.load(sys.argv[2])
    for b in range(r["count"].shape[0]):
        print(f"image {b}: count {int(r['count'][b])}")
        for k in range(r["scores"].shape[1]):
            box = " ".join(f"{v:g}" for v in r["boxes"][b, k])
            print(f"  {box} | {r['scores'][b, k]:g} | {int(r['labels'][b, k])}")
    sys.exit()
boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [1, 1, 11, 11],
                  [20, 20, 30, 30], [0, 0, 10, 10], [5, 0, 15, 10],
                  [40, 40, 50, 50]], np.float32)
scores = np.array([
    # image 0
    [[0.9, 0.1], [0.8, 0.2], [0.1, 0.7], [0.3, 0.2], [0.2, 0.15], [0.6, 0.0],
     [0.0, 0.28]],
    # image 1: one box above the threshold
    [[0.5, 0.1], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0],
     [0.0, 0.0]]], np.float32)
np.savez(sys.argv[1], b=np.stack([boxes, boxes]), s=scores)
