"""Trains make_yolo.py's detector briefly on its generated shapes (squares,
discs, triangles), so that its boxes mean something, and writes the weights
as float16 (make_yolo.py --weights). A YOLOv5-style loss, simplified: each
box goes to the cell holding its centre at every level and anchor whose
size ratio is under 4; GIoU for the box, BCE for objectness (levels weighted
4, 1, 0.4) and classes.
usage: train_yolo.py OUT.npz [--steps 300] [--batch 8] [--size 320]
       [--init PREVIOUS.npz --seed N]
"""
import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F
from torchvision.ops import generalized_box_iou_loss

import make_yolo


def targets(labels, level, stride, anchors, ny, nx):
    """(batch, anchor, gy, gx) indices and (class, x1, y1, x2, y2) in grid
    units of the boxes assigned at one level."""
    idx, boxes = [], []
    for b, objects in enumerate(labels):
        for cls, cx, cy, w, h in objects:
            gx, gy = min(int(cx / stride), nx - 1), min(int(cy / stride), ny - 1)
            for a, (aw, ah) in enumerate(anchors):
                if max(w / aw, aw / w, h / ah, ah / h) < 4:
                    idx.append((b, a, gy, gx))
                    boxes.append((cls, (cx - w / 2) / stride, (cy - h / 2) / stride,
                                  (cx + w / 2) / stride, (cy + h / 2) / stride))
    return idx, boxes


def loss(model, raw, labels):
    det = model.detect
    total_box = total_obj = total_cls = 0.0
    for i, (p, stride, balance) in enumerate(zip(raw, det.strides, (4.0, 1.0, 0.4))):
        _, _, ny, nx, _ = p.shape
        anchors = det.anchor_px[i].tolist()
        idx, boxes = targets(labels, i, stride, anchors, ny, nx)
        tobj = torch.zeros(p.shape[:4])
        if idx:
            b, a, gy, gx = map(torch.tensor, zip(*idx))
            t = torch.tensor(boxes, dtype=torch.float32)
            ps = p[b, a, gy, gx]
            xy = ps[:, :2].sigmoid() * 2 - 0.5 + torch.stack((gx, gy), 1)
            wh = (ps[:, 2:4].sigmoid() * 2) ** 2 * det.anchor_px[i][a] / stride
            pbox = torch.cat((xy - wh / 2, xy + wh / 2), 1)
            total_box = total_box + generalized_box_iou_loss(pbox, t[:, 1:], reduction="mean")
            tobj[b, a, gy, gx] = 1.0
            onehot = F.one_hot(t[:, 0].long(), det.no - 5).float()
            total_cls = total_cls + F.binary_cross_entropy_with_logits(ps[:, 5:], onehot)
        total_obj = total_obj + balance * F.binary_cross_entropy_with_logits(p[..., 4], tobj)
    return 0.05 * total_box + 1.0 * total_obj + 0.5 * total_cls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--size", type=int, default=320)
    ap.add_argument("--init", help="weights to go on from (a previous OUT.npz)")
    ap.add_argument("--seed", type=int, default=1, help="of the generated images")
    args = ap.parse_args()
    torch.manual_seed(0)
    rng = np.random.default_rng(args.seed)
    model = make_yolo.Yolo()
    if args.init:
        make_yolo.load_weights(model, args.init)
    model.train()
    model.detect.raw = True
    opt = torch.optim.Adam(model.parameters(), 2e-3)
    start = time.time()
    for step in range(args.steps):
        x, labels = make_yolo.shapes(args.batch, args.size, rng)
        l = loss(model, model(torch.from_numpy(x)), labels)
        opt.zero_grad()
        l.backward()
        opt.step()
        if step % 20 == 0 or step == args.steps - 1:
            print(f"step {step}: loss {l.item():.4f} ({time.time() - start:.0f} s)", flush=True)
    model.detect.raw = False
    np.savez_compressed(args.out, **{
        k: v.detach().numpy().astype(np.float16 if v.dtype.is_floating_point else v.numpy().dtype)
        for k, v in model.state_dict().items()})


if __name__ == "__main__":
    main()
