"""A YOLOv5-shaped detector, as users write and export it:
  Conv = Conv2d + BatchNorm + SiLU; C3 blocks of bottlenecks; SPPF (three 5x5
  max-pools); an FPN/PAN neck with nearest upsampling and concatenation; a
  Detect head over strides 8, 16 and 32 that decodes boxes in the graph, as
  YOLOv5's export does: sigmoid, a grid built by meshgrid(arange) and anchor
  constants, xy = (2 s - 0.5 + grid) * stride, wh = (2 s)^2 * anchor. The
  output is [1, boxes, 5 + classes]: cx, cy, w, h in input pixels, the
  objectness and the class scores. No NMS in the graph.
Its weights are yolo_shapes.npz (train_yolo.py: a short training on the
generated shapes below, float16), or with --weights none seeded random ones
with BatchNorm statistics re-estimated on images (nothing is downloaded).
It writes yolo.onnx (torch.onnx.export, opset 17), yolo.traced.pt
(torch.jit.trace), yolo.input.npz (one image of three shapes in [0, 1]),
yolo.ref.npz (PyTorch's float32 output on it) and yolo.calib.npz (8 other
images, for int8 calibration).
usage: make_yolo.py [OUTDIR] [--weights W.npz|none] [--size 320]
       [--classes 3] [--width 16]
"""
import argparse
import math
import os
import warnings

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
HERE = os.path.dirname(os.path.abspath(__file__))


class Conv(nn.Module):
    def __init__(self, cin, cout, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, (k - 1) // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c, shortcut=True):
        super().__init__()
        self.cv1, self.cv2 = Conv(c, c, 1), Conv(c, c, 3)
        self.add = shortcut

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    def __init__(self, cin, cout, n=1, shortcut=True):
        super().__init__()
        h = cout // 2
        self.cv1, self.cv2, self.cv3 = Conv(cin, h), Conv(cin, h), Conv(2 * h, cout)
        self.m = nn.Sequential(*(Bottleneck(h, shortcut) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        h = cin // 2
        self.cv1, self.cv2 = Conv(cin, h), Conv(4 * h, cout)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class Detect(nn.Module):
    """YOLOv5's head in export mode: the grids are computed in forward from
    each map's shape, so the exporter writes Range, meshgrid and Cast. With
    raw set (training), forward gives each level's logits [B, 3, ny, nx,
    5 + classes] instead."""

    raw = False

    strides = (8, 16, 32)
    anchors = ((10, 13, 16, 30, 33, 23), (30, 61, 62, 45, 59, 119),
               (116, 90, 156, 198, 373, 326))

    def __init__(self, classes, channels):
        super().__init__()
        self.no, self.na = classes + 5, 3
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in channels)
        self.register_buffer("anchor_px", torch.tensor(self.anchors).float().view(3, 3, 2))
        # YOLOv5's initial biases (_initialize_biases): an object in about 8
        # of the cells of a 640 image, and class priors of 0.6 / classes;
        # so an untrained head scores as a new YOLOv5 does.
        with torch.no_grad():
            for conv, s in zip(self.m, self.strides):
                b = conv.bias.view(self.na, self.no)
                b[:, 4] += math.log(8 / (640 / s) ** 2)
                b[:, 5:] += math.log(0.6 / (classes - 0.99))

    def grid(self, i, ny, nx):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float() - 0.5
        anchor = self.anchor_px[i].view(1, self.na, 1, 1, 2).expand(1, self.na, ny, nx, 2)
        return grid, anchor

    def forward(self, maps):
        out = []
        for i, x in enumerate(maps):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            if self.raw:
                out.append(x)
                continue
            grid, anchor = self.grid(i, ny, nx)
            xy, wh, conf = x.sigmoid().split((2, 2, self.no - 4), 4)
            xy = (xy * 2 + grid) * self.strides[i]
            wh = (wh * 2) ** 2 * anchor
            out.append(torch.cat((xy, wh, conf), 4).view(bs, self.na * nx * ny, self.no))
        return out if self.raw else torch.cat(out, 1)


class Yolo(nn.Module):
    def __init__(self, classes=3, w=16):
        super().__init__()
        self.b0 = Conv(3, w, 6, 2)                               # /2
        self.b1 = nn.Sequential(Conv(w, 2 * w, 3, 2), C3(2 * w, 2 * w))      # /4
        self.b2 = nn.Sequential(Conv(2 * w, 4 * w, 3, 2), C3(4 * w, 4 * w, 2))  # /8
        self.b3 = nn.Sequential(Conv(4 * w, 8 * w, 3, 2), C3(8 * w, 8 * w))  # /16
        self.b4 = nn.Sequential(Conv(8 * w, 16 * w, 3, 2), C3(16 * w, 16 * w),
                                SPPF(16 * w, 16 * w))          # /32
        self.lat4 = Conv(16 * w, 8 * w)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.c3_p4 = C3(16 * w, 8 * w, shortcut=False)
        self.lat3 = Conv(8 * w, 4 * w)
        self.c3_p3 = C3(8 * w, 4 * w, shortcut=False)           # P3 out
        self.down3 = Conv(4 * w, 4 * w, 3, 2)
        self.c3_n4 = C3(8 * w, 8 * w, shortcut=False)           # P4 out
        self.down4 = Conv(8 * w, 8 * w, 3, 2)
        self.c3_n5 = C3(16 * w, 16 * w, shortcut=False)         # P5 out
        self.detect = Detect(classes, (4 * w, 8 * w, 16 * w))

    def forward(self, images):  # the input's name in both exports
        p2 = self.b2(self.b1(self.b0(images)))
        p3 = self.b3(p2)
        p5 = self.lat4(self.b4(p3))
        h4 = self.lat3(self.c3_p4(torch.cat((self.up(p5), p3), 1)))
        o3 = self.c3_p3(torch.cat((self.up(h4), p2), 1))
        o4 = self.c3_n4(torch.cat((self.down3(o3), h4), 1))
        o5 = self.c3_n5(torch.cat((self.down4(o4), p5), 1))
        return self.detect([o3, o4, o5])


def load_weights(model, path):
    """Weights as train_yolo.py stores them: float16, counters as they are."""
    with np.load(path) as w:
        model.load_state_dict({
            k: torch.from_numpy(w[k].astype(np.float32) if w[k].dtype == np.float16 else w[k])
            for k in w.files})


def shapes(count, size, rng):
    """Images of 1 to 3 shapes on a dark textured background, in [0, 1], and
    their boxes: per image a list of (class, cx, cy, w, h) in pixels; class
    0 a square, 1 a disc, 2 a triangle (apex up)."""
    out = np.empty((count, 3, size, size), np.float32)
    labels = []
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(count):
        img = rng.uniform(0.0, 0.3, (3, size, size)).astype(np.float32)
        boxes = []
        for _ in range(rng.integers(1, 4)):
            cx, cy = rng.uniform(0.2, 0.8, 2) * size
            r = rng.uniform(0.05, 0.2) * size
            color = rng.uniform(0.5, 1.0, 3).astype(np.float32)
            cls = int(rng.integers(3))
            if cls == 0:
                mask = (abs(xx - cx) < r) & (abs(yy - cy) < r)
            elif cls == 1:
                mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
            else:
                mask = (yy >= cy - r) & (yy < cy + r) & (abs(xx - cx) <= (yy - cy + r) / 2)
            img[:, mask] = color[:, None]
            boxes.append((cls, cx, cy, 2 * r, 2 * r))
        out[i] = img
        labels.append(boxes)
    return out, labels


def images(count, size, rng):
    return shapes(count, size, rng)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir", nargs="?", default=".")
    parser.add_argument("--size", type=int, default=320)
    parser.add_argument("--classes", type=int, default=3)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--weights", default=os.path.join(HERE, "yolo_shapes.npz"),
                        help="trained weights (train_yolo.py; default the "
                        "shipped yolo_shapes.npz), or none for seeded random "
                        "weights")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    rng = np.random.default_rng(0)
    model = Yolo(args.classes, args.width)
    if args.weights != "none":
        load_weights(model, args.weights)
    else:
        # BatchNorm statistics from images, so activations keep a sane range.
        model.train()
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.momentum = None
            for _ in range(4):
                model(torch.from_numpy(images(4, args.size, rng)))
    model.eval()
    # The first generated image with three shapes, so that NMS keeps several
    # boxes.
    while True:
        image, labels = shapes(1, args.size, rng)
        if len(labels[0]) == 3:
            break
    x = torch.from_numpy(image)
    with torch.no_grad():
        ref = model(x)
    path = lambda name: os.path.join(args.outdir, name)
    np.savez(path("yolo.input.npz"), images=x.numpy())
    np.savez(path("yolo.calib.npz"), images=images(8, args.size, rng))
    np.savez(path("yolo.ref.npz"), output=ref.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, path("yolo.onnx"), opset_version=17,
                          input_names=["images"], output_names=["output"])
        torch.jit.trace(model, x).save(path("yolo.traced.pt"))
    print(f"yolo: output {tuple(ref.shape)}")


if __name__ == "__main__":
    main()
