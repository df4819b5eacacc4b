"""The models, frames and references the Java tests and the JNI harness read.

    make_fixtures.py KILN SOURCE_DIR OUT_DIR [--image-reference PROGRAM]
                     [--deeplab]

Writes to OUT_DIR (the image files with --image-reference, the DeepLabV3
files with --deeplab too):
  mnv2.kiln, mnv2.input.bin, mnv2.ref.bin   the example MobileNetV2 (fp32,
      CPU), its example input and `kiln run`'s output at one thread, as raw
      float32 bytes;
  mnv2_rgba.kiln                            the same model reading rgba8
      frames (ImageNet mean and std); frame.rgba, a 97x61 RGBA frame with
      rows 400 bytes apart, and frame.nv21, a 96x64 NV21 frame; and the C
      path's output for them (IMAGE_REFERENCE, kiln_session_set_image):
      image.ref.bin (as is), image_rot90.ref.bin (rotation 90, center
      crop), nv21.ref.bin (rotation 270);
  deeplab_mask.kiln, deeplab_scores.kiln    torchvision's DeepLabV3
      (test/lit/image/Inputs/make_deeplab.py) reading rgba8 frames, with and
      without --argmax-output; street.rgba (160x120) and the C path's mask
      for it, deeplab_mask.ref.bin;
  truncated.kiln                            the first half of mnv2.kiln;
  mnv2_vulkan.kiln, mnv2_nnapi.kiln         with --targets: the example
      MobileNetV2 for the Vulkan and NNAPI targets;
  mobilenet_v2.kiln, .input.bin, .ref.bin, .torch.bin   with --torchvision:
      torchvision's MobileNetV2 (1x3x224x224, 1000 classes, seeded random
      weights) exported to ONNX, `kiln run`'s output at one thread and
      PyTorch's own.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

MEAN = "123.675,116.28,103.53"
STD = "58.395,57.12,57.375"
FORMAT_RGBA8, FORMAT_NV21 = 3, 6


def run(*args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kiln")
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--image-reference")
    parser.add_argument("--deeplab", action="store_true")
    parser.add_argument("--torchvision", action="store_true")
    parser.add_argument("--targets", action="store_true")
    args = parser.parse_args()
    kiln, source, out = args.kiln, args.source, args.out
    image_reference = args.image_reference
    os.makedirs(out, exist_ok=True)
    j = lambda name: os.path.join(out, name)
    models = os.path.join(source, "examples", "models")

    onnx = os.path.join(models, "mobilenetv2_small.onnx")
    run(kiln, "convert", onnx, "-o", j("mnv2.kiln"))
    inputs = np.load(os.path.join(models, "mobilenetv2_small.input.npz"))
    x = inputs[inputs.files[0]].astype("<f4")
    x.tofile(j("mnv2.input.bin"))
    np.save(j("mnv2.input.npy"), x)
    run(kiln, "run", j("mnv2.kiln"), "-i", j("mnv2.input.npy"), "--threads", "1",
        "-o", j("mnv2.ref"))
    np.load(j("mnv2.ref/logits.npy")).astype("<f4").tofile(j("mnv2.ref.bin"))
    run(kiln, "convert", onnx, "--self-test", "-o", j("mnv2_selftest.kiln"))
    with open(j("mnv2.kiln"), "rb") as f:
        whole = f.read()
    with open(j("truncated.kiln"), "wb") as f:
        f.write(whole[: len(whole) // 2])

    if args.targets:
        for target in ("vulkan", "nnapi"):
            run(kiln, "convert", onnx, "--target", target, "--self-test", "-o",
                j("mnv2_%s.kiln" % target))
    if args.torchvision:
        torchvision_mobilenet(kiln, j)
    if not image_reference:
        return
    run(kiln, "convert", onnx, "--image-input", "input=rgba8", "--mean", MEAN,
        "--std", STD, "-o", j("mnv2_rgba.kiln"))
    rng = np.random.RandomState(7)
    frame = np.zeros((61, 400), np.uint8)  # 97 RGBA pixels = 388 bytes a row
    frame[:, :388] = rng.randint(0, 256, (61, 388))
    frame.tofile(j("frame.rgba"))
    nv21 = rng.randint(0, 256, (96, 96)).astype(np.uint8)  # Y 64 rows, VU 32
    nv21.tofile(j("frame.nv21"))
    for name, frame_args in (("image", (97, 61, 400, FORMAT_RGBA8, 0, 0)),
                       ("image_rot90", (97, 61, 400, FORMAT_RGBA8, 90, 1))):
        run(image_reference, j("mnv2_rgba.kiln"), j("frame.rgba"), *frame_args,
            j(name + ".ref.bin"))
    run(image_reference, j("mnv2_rgba.kiln"), j("frame.nv21"), 96, 64, 96,
        FORMAT_NV21, 270, 0, j("nv21.ref.bin"))

    if args.deeplab:
        make = os.path.join(source, "test", "lit", "image", "Inputs", "make_deeplab.py")
        subprocess.run([sys.executable, make, out], check=True,
                       stderr=subprocess.DEVNULL)
        for name, extra in (("deeplab_mask", ["--argmax-output", "out"]),
                            ("deeplab_scores", [])):
            run(kiln, "convert", j("deeplab.onnx"), "--image-input", "input=rgba8",
                "--mean", MEAN, "--std", STD, *extra, "-o", j(name + ".kiln"))
        # A smooth scene (gradients and a disc) so that the mask has regions.
        yy, xx = np.mgrid[0:120, 0:160]
        street = np.zeros((120, 160, 4), np.uint8)
        street[..., 0] = xx * 255 // 159
        street[..., 1] = yy * 255 // 119
        street[..., 2] = np.where((xx - 80) ** 2 + (yy - 60) ** 2 < 900, 255, 40)
        street[..., 3] = 255
        street.tofile(j("street.rgba"))
        run(image_reference, j("deeplab_mask.kiln"), j("street.rgba"), 160, 120,
            640, FORMAT_RGBA8, 0, 0, j("deeplab_mask.ref.bin"))


def torchvision_mobilenet(kiln, j):
    import torch
    import torchvision

    torch.manual_seed(0)
    net = torchvision.models.mobilenet_v2(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        y = net(x)
        torch.onnx.export(net, x, j("mobilenet_v2.onnx"), opset_version=13,
                          input_names=["input"], output_names=["logits"])
    x.numpy().astype("<f4").tofile(j("mobilenet_v2.input.bin"))
    np.save(j("mobilenet_v2.input.npy"), x.numpy())
    y.numpy().astype("<f4").tofile(j("mobilenet_v2.torch.bin"))
    run(kiln, "convert", j("mobilenet_v2.onnx"), "-o", j("mobilenet_v2.kiln"))
    run(kiln, "run", j("mobilenet_v2.kiln"), "-i", j("mobilenet_v2.input.npy"),
        "--threads", "1", "-o", j("mobilenet_v2.ref"))
    np.load(j("mobilenet_v2.ref/logits.npy")).astype("<f4").tofile(j("mobilenet_v2.ref.bin"))


if __name__ == "__main__":
    main()
