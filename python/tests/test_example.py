"""examples/python/accuracy.py: the shapes model's fp32 and int8 accuracy
through kiln.Session, checked against the same files run by the CLI."""
import pathlib
import re
import subprocess
import sys

import numpy as np

from conftest import EXAMPLES


def test_accuracy_example(tmp_path, cli):
    r = subprocess.run([sys.executable, str(EXAMPLES / "python" / "accuracy.py"),
                        str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = dict(re.findall(r"^(fp32|int8): ([0-9.]+) top-1", r.stdout, re.M))
    assert set(got) == {"fp32", "int8"}
    sys.path.insert(0, str(EXAMPLES / "shapes"))
    from shapes_data import make_split
    test, labels = make_split("test")
    np.save(tmp_path / "test.npy", test)
    for name, acc in got.items():
        cli("run", tmp_path / f"shapes.{name}.kiln", "--input",
            tmp_path / "test.npy", "-o", tmp_path / "out.npz")
        logits = np.load(tmp_path / "out.npz")["logits"]
        want = float((logits.argmax(axis=1) == labels).mean())
        assert abs(float(acc) - want) < 1e-9, (name, acc, want)
    assert float(got["fp32"]) > 0.9
    assert abs(float(got["int8"]) - float(got["fp32"])) < 0.02
