"""Calibration from Python iterables: the same statistics as from files."""
import numpy as np
import pytest

import kiln
from conftest import python_ran_during


def samples(n, shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def test_generator_equals_cli_on_disk(mobilenet, tmp_path, cli):
    batches = samples(6, (1, 3, 64, 64), 5)
    folder = tmp_path / "calib"
    folder.mkdir()
    for i, b in enumerate(batches):
        np.save(folder / f"{i:02d}.npy", b)
    cli("calibrate", mobilenet, "--calib", folder, "-o", tmp_path / "cli.kcal")
    r = kiln.calibrate(mobilenet, (b for b in batches), tmp_path / "py.kcal")
    assert r["samples"] == 6
    assert (tmp_path / "py.kcal").read_bytes() == (tmp_path / "cli.kcal").read_bytes()


def test_batches_cut_into_samples(mobilenet, tmp_path, cli):
    # One array of 4 samples along a leading axis, and 2 batches of 2 along
    # the batch axis, give the statistics of the 4 samples one by one.
    xs = samples(4, (1, 3, 64, 64), 8)
    kiln.calibrate(mobilenet, iter(xs), tmp_path / "one.kcal")
    kiln.calibrate(mobilenet, [np.stack(xs)], tmp_path / "stacked.kcal")
    kiln.calibrate(mobilenet, [{"input": np.concatenate(xs[:2])},
                               {"input": np.concatenate(xs[2:])}],
                   tmp_path / "batched.kcal", input_shape=None)
    one = (tmp_path / "one.kcal").read_bytes()
    assert (tmp_path / "stacked.kcal").read_bytes() == one


def test_int8_from_generator_runs(resnet18, tmp_path):
    model, onnx_path = resnet18
    rng = np.random.default_rng(11)
    gen = (rng.standard_normal((1, 3, 224, 224)).astype(np.float32) for _ in range(4))
    report = kiln.convert(onnx_path, tmp_path / "q.kiln", quantize="int8", calib=gen)
    assert report["quantize"]["mode"] == "int8"
    kiln.convert(onnx_path, tmp_path / "f.kiln")
    x = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    q = kiln.Session(tmp_path / "q.kiln").run(x)["logits"]
    f = kiln.Session(tmp_path / "f.kiln").run(x)["logits"]
    sqnr = 10 * np.log10((f ** 2).sum() / ((f - q) ** 2).sum())
    assert sqnr > 15, sqnr


def test_iterable_errors(mobilenet, tmp_path):
    def broken():
        yield np.zeros((1, 3, 64, 64), np.float32)
        raise RuntimeError("the loader broke")

    with pytest.raises(RuntimeError, match="the loader broke"):
        kiln.calibrate(mobilenet, broken(), tmp_path / "x.kcal")
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.calibrate(mobilenet, [np.zeros((1, 3, 32, 32), np.float32)], tmp_path / "x.kcal")
    assert "calibration batch 0" in str(e.value)
    with pytest.raises(kiln.InvalidInputError):
        kiln.calibrate(mobilenet, [], tmp_path / "x.kcal")
    with pytest.raises(kiln.InvalidInputError):
        kiln.calibrate(mobilenet, ["not an array"], tmp_path / "x.kcal")
    assert not (tmp_path / "x.kcal").exists()


def test_calibration_releases_the_gil(mobilenet, tmp_path):
    # Another Python thread (a DataLoader worker's stand-in) runs while kiln
    # calibrates; the samples come from the calling thread's generator.
    xs = samples(48, (1, 3, 64, 64), 2)
    ran = python_ran_during(lambda: kiln.calibrate(
        mobilenet, iter(xs), tmp_path / "x.kcal", threads=1))
    assert ran > 10


def test_merge_equals_cli(mobilenet, tmp_path, cli):
    folder = tmp_path / "calib"
    folder.mkdir()
    for i, b in enumerate(samples(4, (1, 3, 64, 64), 9)):
        np.save(folder / f"{i}.npy", b)
    for i in range(2):
        cli("calibrate", mobilenet, "--calib", folder, "--shard", f"{i}/2",
            "-o", tmp_path / f"s{i}.kcal")
    kiln.merge([tmp_path / "s0.kcal", tmp_path / "s1.kcal"], tmp_path / "py.kcal")
    cli("calibrate", "--merge", tmp_path / "s0.kcal", tmp_path / "s1.kcal",
        "-o", tmp_path / "cli.kcal")
    assert (tmp_path / "py.kcal").read_bytes() == (tmp_path / "cli.kcal").read_bytes()
