"""Compares a YOLO-style detector's output GOT.npz with PyTorch's REF.npz.
Both hold one [1, boxes, 5 + classes] array (cx, cy, w, h in pixels, the
objectness, the class scores). It prints:
  boxes: the largest error of a decoded box coordinate relative to the
         coordinate (|got - ref| / max(|ref|, 1)), and whether it is within
         --max-rel (when given);
  scores: the largest absolute error of an objectness or class score;
  nms: the boxes kept by the same NMS on both (YOLOv5's: score = objectness x
       class score > --score, torchvision's batched_nms at --iou per class),
       their counts, and the mean IoU of each reference box with the
       got box of the same class that overlaps it most (0 when none does).
usage: compare_detections.py GOT.npz REF.npz [--max-rel R] [--min-iou M]
       [--score 0.25] [--iou 0.45]
"""
import argparse
import sys

import numpy as np
import torch
from torchvision.ops import batched_nms, box_iou


def first_array(path):
    with np.load(path) as f:
        return f[f.files[0]].astype(np.float64)


def nms(pred, score_min, iou):
    """YOLOv5's post-processing of one image: xyxy boxes, scores, labels."""
    p = torch.from_numpy(pred[0])
    scores, labels = (p[:, 5:] * p[:, 4:5]).max(1)
    keep = scores > score_min
    p, scores, labels = p[keep], scores[keep], labels[keep]
    xyxy = torch.cat((p[:, :2] - p[:, 2:4] / 2, p[:, :2] + p[:, 2:4] / 2), 1)
    kept = batched_nms(xyxy, scores, labels, iou)
    return xyxy[kept], scores[kept], labels[kept]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("got")
    parser.add_argument("ref")
    parser.add_argument("--max-rel", type=float)
    parser.add_argument("--min-iou", type=float)
    parser.add_argument("--score", type=float, default=0.25)
    parser.add_argument("--iou", type=float, default=0.45)
    args = parser.parse_args()
    got, ref = first_array(args.got), first_array(args.ref)
    if got.shape != ref.shape:
        sys.exit(f"shape {got.shape} != {ref.shape}")
    rel = (np.abs(got[..., :4] - ref[..., :4]) / np.maximum(np.abs(ref[..., :4]), 1)).max()
    verdict = ""
    if args.max_rel is not None:
        verdict = f": {'within' if rel <= args.max_rel else 'ABOVE'} {args.max_rel:g}"
    print(f"boxes: {rel:.2e} relative{verdict}")
    print(f"scores: {np.abs(got[..., 4:] - ref[..., 4:]).max():.2e} absolute")
    gb, _, gl = nms(got, args.score, args.iou)
    rb, _, rl = nms(ref, args.score, args.iou)
    if len(rb) == 0:
        sys.exit("the reference keeps no box: lower --score")
    ious = box_iou(rb, gb) if len(gb) else torch.zeros(len(rb), 1)
    if len(gb):
        ious = ious * (rl[:, None] == gl[None, :])
    mean_iou = float(ious.max(1).values.mean())
    verdict = ""
    if args.min_iou is not None:
        verdict = f": {'at least' if mean_iou >= args.min_iou else 'BELOW'} {args.min_iou:g}"
    print(f"nms: {len(gb)} boxes, reference {len(rb)}; mean IoU {mean_iou:.4f}{verdict}")


if __name__ == "__main__":
    main()
