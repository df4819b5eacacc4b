"""Checks kiln's --nms outputs (GOT.npz: boxes [1, K, 4], scores [1, K],
labels [1, K], count [1]) against YOLOv5's post-processing of PyTorch's raw
output (REF.npz, [1, boxes, 5 + classes]): score = objectness x class score,
the best class a box, kept when above --score, torchvision's batched_nms at
--iou, the first --max. Prints the counts, the largest box corner error
(relative to the larger of the coordinate and the box's width or height: a
corner near 0 is a difference of larger numbers), the largest score error,
whether the labels and the order are the same, and whether the rows past
the count are zero (labels -1).
usage: check_nms.py GOT.npz REF.npz --iou 0.45 --score 0.25 --max 100
"""
import argparse

import numpy as np

from compare_detections import nms


def reference(raw, iou, score_min, max_det):
    boxes, scores, labels = nms(raw, score_min, iou)
    return boxes[:max_det].numpy(), scores[:max_det].numpy(), labels[:max_det].numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("got")
    ap.add_argument("ref")
    ap.add_argument("--iou", type=float, default=0.45)
    ap.add_argument("--score", type=float, default=0.25)
    ap.add_argument("--max", type=int, default=100)
    args = ap.parse_args()
    got = np.load(args.got)
    with np.load(args.ref) as f:
        raw = f[f.files[0]]
    rb, rs, rl = reference(raw, args.iou, args.score, args.max)
    n = int(got["count"][0])
    print(f"count: {n}, reference {len(rb)}")
    if n != len(rb):
        return
    gb, gs, gl = got["boxes"][0], got["scores"][0], got["labels"][0]
    # Relative to the coordinate or the box's size, whichever is larger: a
    # corner near 0 is a difference of two larger numbers.
    size = np.maximum(rb[:, 2:] - rb[:, :2], 1).max(1, keepdims=True)
    err = (np.abs(gb[:n] - rb) / np.maximum(np.abs(rb), size)).max() if n else 0.0
    print(f"boxes: {err:.1e} relative")
    print(f"scores: {np.abs(gs[:n] - rs).max() if n else 0.0:.1e} absolute")
    print(f"labels and order: {'same' if (gl[:n] == rl).all() else 'DIFFER'}")
    rest = (gb[n:] == 0).all() and (gs[n:] == 0).all() and (gl[n:] == -1).all()
    print(f"rows past the count: {'zero, labels -1' if rest else 'NOT CLEARED'}")


if __name__ == "__main__":
    main()
