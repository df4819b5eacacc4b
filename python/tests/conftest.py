"""Shared fixtures: where the kiln CLI and the repository are (set by ctest's
python-package test), and models made here with PyTorch (random weights,
fixed seeds: nothing is downloaded)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

SOURCE = pathlib.Path(os.environ.get("KILN_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = SOURCE / "examples"


@pytest.fixture(scope="session")
def kiln_exe():
    exe = os.environ.get("KILN_EXE")
    if not exe:
        pytest.fail("KILN_EXE (the kiln CLI) is not set: run through ctest")
    return exe


@pytest.fixture(scope="session")
def cli(kiln_exe):
    """Runs the kiln CLI; returns its stdout, failing on a non-zero exit."""
    def run(*args):
        r = subprocess.run([kiln_exe, *map(str, args)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout
    return run


@pytest.fixture(scope="session")
def mobilenet():
    return EXAMPLES / "models" / "mobilenetv2_small.onnx"


@pytest.fixture(scope="session")
def mobilenet_input():
    return np.load(EXAMPLES / "models" / "mobilenetv2_small.input.npz")


@pytest.fixture(scope="session")
def shapes_model():
    return EXAMPLES / "shapes" / "shapes_cnn.onnx"


@pytest.fixture(scope="session")
def resnet18(tmp_path_factory):
    """torchvision's ResNet-18 (seeded random weights, BatchNorm statistics
    made non-trivial), exported to ONNX at opset 13; returns (model, path)."""
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    model.eval()
    path = tmp_path_factory.mktemp("resnet18") / "resnet18.onnx"
    torch.onnx.export(model, torch.zeros(1, 3, 224, 224), str(path),
                      opset_version=13, input_names=["input"],
                      output_names=["logits"])
    return model, path


def python_ran_during(call):
    """How often another Python thread ran while CALL (one kiln call) was
    in progress: a counter thread notes the time every 1000 iterations, and
    the notes well inside the call's window are counted. A call that kept
    the GIL throughout gives 0."""
    import threading
    import time
    notes, stop = [], threading.Event()

    def count():
        i = 0
        while not stop.is_set():
            i += 1
            if i % 1000 == 0:
                notes.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.05)
    start = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    t.join()
    margin = (end - start) * 0.1
    return sum(1 for n in notes if start + margin < n < end - margin)
