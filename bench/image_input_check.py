"""The camera-input issue's full-size checks, run as a new user would run
them: kiln's command line on PNG files, against PyTorch's own pipeline.

    /usr/bin/python3 bench/image_input_check.py KILN NNAPI_HOST_LIB WORKDIR

1. torchvision's ResNet-18 (seeded random weights, BatchNorm statistics
   re-estimated on random images), exported to ONNX, converted with
   --image-input input=rgb8 and ImageNet's mean and std for cpu, vulkan and
   nnapi; a 224x224 PNG and a 640x480 PNG through `kiln run --input
   input=FILE.png` against ToTensor, F.interpolate(bilinear,
   align_corners=False) for the large frame, Normalize, the model: SQNR.
2. The trained shapes model (examples/shapes), its 1000 test images written
   as 8-bit PNGs (pixel = 128 + 25 x, clipped), through the image path in
   fp32 and static int8 (calibrated on the calib split): top-1 of each.
Prints one line per figure.
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from PIL import Image

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
MEAN_PX = ",".join(f"{255 * m:g}" for m in MEAN)
STD_PX = ",".join(f"{255 * s:g}" for s in STD)


def run(cmd, env=None):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)


def sqnr(got, ref):
    got, ref = got.astype(np.float64), ref.astype(np.float64)
    return 10 * np.log10((ref ** 2).sum() / max(((got - ref) ** 2).sum(), 1e-300))


def smooth_image(rng, h, w):
    coarse = torch.from_numpy(rng.uniform(0, 255, (1, 3, h // 16, w // 16)))
    img = F.interpolate(coarse, size=(h, w), mode="bicubic", align_corners=False)
    img = img + torch.from_numpy(rng.normal(0, 8, (1, 3, h, w)))
    return img.clamp(0, 255).round().to(torch.uint8)[0].permute(1, 2, 0).numpy()


def resnet18_check(kiln, nnapi, work):
    torch.manual_seed(0)
    net = torchvision.models.resnet18(weights=None)
    net.train()
    with torch.no_grad():
        for _ in range(8):
            net(torch.randn(8, 3, 224, 224))
    net.eval()
    onnx = os.path.join(work, "resnet18.onnx")
    torch.onnx.export(net, torch.randn(1, 3, 224, 224), onnx,
                      input_names=["input"], output_names=["logits"],
                      opset_version=17)
    rng = np.random.default_rng(11)
    frames = {"224x224": smooth_image(rng, 224, 224),
              "640x480": smooth_image(rng, 480, 640)}
    refs = {}
    for name, rgb in frames.items():
        path = os.path.join(work, f"frame{name}.png")
        Image.fromarray(rgb).save(path)
        x = torch.from_numpy(rgb).permute(2, 0, 1).float().div(255).unsqueeze(0)
        if x.shape[2:] != (224, 224):
            x = F.interpolate(x, size=(224, 224), mode="bilinear",
                              align_corners=False)
        x = (x - torch.tensor(MEAN).view(1, 3, 1, 1)) / torch.tensor(STD).view(1, 3, 1, 1)
        with torch.no_grad():
            refs[name] = net(x).numpy()
    env = dict(os.environ, KILN_NNAPI_LIBRARY=nnapi)
    for target in ["cpu", "vulkan", "nnapi"]:
        out = os.path.join(work, f"resnet18.{target}.kiln")
        run([kiln, "convert", onnx, "--target", target, "--image-input",
             "input=rgb8", "--mean", MEAN_PX, "--std", STD_PX, "-o", out])
        for name in frames:
            npz = os.path.join(work, f"out.{target}.{name}.npz")
            run([kiln, "run", out, "--input",
                 f"input={os.path.join(work, f'frame{name}.png')}", "-o", npz],
                env=env)
            got = np.load(npz)["logits"]
            print(f"resnet18 {target} {name} PNG: SQNR {sqnr(got, refs[name]):.1f} dB, "
                  f"top-1 {'same' if got.argmax() == refs[name].argmax() else 'DIFFERENT'}")


def shapes_check(kiln, work, limit):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples", "shapes"))
    from shapes_data import make_split
    model = os.path.join(os.path.dirname(__file__), "..", "examples", "shapes", "shapes_cnn.onnx")
    calib, _ = make_split("calib")
    np.save(os.path.join(work, "calib.npy"), calib)
    x, labels = make_split("test")
    x, labels = x[:limit], labels[:limit]
    pngs = []
    for i in range(len(x)):
        path = os.path.join(work, f"shape{i}.png")
        Image.fromarray(np.clip(np.rint(x[i, 0] * 25 + 128), 0, 255).astype(np.uint8)).save(path)
        pngs.append(path)
    files = {"fp32": [], "int8": ["--quantize", "int8", "--calib",
                                  os.path.join(work, "calib.npy")]}
    for mode, flags in files.items():
        out = os.path.join(work, f"shapes.{mode}.kiln")
        run([kiln, "convert", model, "--image-input", "image=gray8", "--mean",
             "128", "--std", "25", "-o", out] + flags)
        correct = 0
        for png, label in zip(pngs, labels):
            npz = os.path.join(work, "shape.out.npz")
            run([kiln, "run", out, "--input", f"image={png}", "-o", npz])
            correct += int(np.load(npz)["logits"].argmax() == label)
        print(f"shapes {mode} via {len(pngs)} PNGs: top-1 {100.0 * correct / len(pngs):.1f}%")


def main():
    kiln, nnapi, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    resnet18_check(kiln, nnapi, work)
    shapes_check(kiln, work, 1000)


if __name__ == "__main__":
    main()
