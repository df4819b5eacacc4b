#!/usr/bin/env python3
"""The shapes classifier's accuracy on its test split (1000 images), fp32
and int8, through kiln's Python package: convert from Python, calibrate int8
from a generator of calibration batches (nothing written to disk but the
.kiln files), run each file with kiln.Session.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/accuracy.py [OUT_DIR]
"""
import pathlib
import sys
import tempfile

import numpy as np

import kiln

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "shapes"))
from shapes_data import make_split  # noqa: E402

MODEL = ROOT / "examples" / "shapes" / "shapes_cnn.onnx"


def batches(images, size):
    """What a DataLoader gives: [size, 1, 16, 16] float32 arrays."""
    for i in range(0, len(images), size):
        yield images[i:i + size]


def accuracy(path, images, labels):
    session = kiln.Session(path)
    correct = 0
    for i, batch in enumerate(batches(images, 100)):
        logits = session.run(batch)["logits"]
        correct += int((logits.argmax(axis=1) == labels[i * 100:(i + 1) * 100]).sum())
    return correct / len(labels)


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="kiln-"))
    out.mkdir(parents=True, exist_ok=True)
    calib, _ = make_split("calib")
    test, labels = make_split("test")
    kiln.convert(MODEL, out / "shapes.fp32.kiln")
    report = kiln.convert(MODEL, out / "shapes.int8.kiln", quantize="int8",
                          calib=batches(calib, 32))
    assert report["quantize"]["mode"] == "int8"
    for name in ("fp32", "int8"):
        acc = accuracy(out / f"shapes.{name}.kiln", test, labels)
        print(f"{name}: {acc:.4f} top-1 on {len(labels)} test images")


if __name__ == "__main__":
    main()
