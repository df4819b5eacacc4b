"""The functions of the kiln package: each builds the command line of the
kiln command it stands for and runs it in this process (kiln._kiln._run),
so flags, checks and messages are the CLI's own (docs/cli.md)."""

import contextlib
import json
import os
import tempfile

from . import _kiln


def _flag_args(options):
    """keyword=value -> --keyword value; True -> --keyword; False/None -> nothing;
    a list or tuple -> the flag once per item."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                args += [flag, str(item)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _shape_args(input_shape):
    """input_shape: "1x3x224x224", (1, 3, 224, 224), or {name: shape}."""
    if input_shape is None:
        return []
    def text(shape):
        return shape if isinstance(shape, str) else "x".join(str(int(d)) for d in shape)
    if isinstance(input_shape, dict):
        return [a for name, shape in input_shape.items()
                for a in ("--input-shape", f"{name}={text(shape)}")]
    return ["--input-shape", text(input_shape)]


def _is_path(x):
    return isinstance(x, (str, os.PathLike))


@contextlib.contextmanager
def _model_path(source, example_input, folder):
    """(path, input shapes) for SOURCE: itself (and None), or a
    torch.nn.Module traced with EXAMPLE_INPUT to TorchScript in FOLDER (and
    the example's shapes by input name: TorchScript files record none)."""
    if _is_path(source):
        yield os.fspath(source), None
        return
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a test dependency
        raise _kiln.UsageError("a model object needs PyTorch; give a path to a "
                               ".onnx, .pt or .kir file instead") from None
    if not isinstance(source, torch.nn.Module):
        raise _kiln.UsageError(f"source must be a path or a torch.nn.Module, "
                               f"not {type(source).__name__}")
    if example_input is None:
        raise _kiln.UsageError("a torch.nn.Module source needs example_input= "
                               "(a tensor, or a tuple of them) to trace it")
    path = os.path.join(folder, type(source).__name__ + ".pt")
    was_training = source.training
    source.eval()
    try:
        with torch.no_grad():
            traced = torch.jit.trace(source, example_input)
        traced.save(path)
    finally:
        source.train(was_training)
    examples = example_input if isinstance(example_input, (tuple, list)) else (example_input,)
    names = [i.debugName().split(".")[0] for i in traced.graph.inputs()][1:]  # [0]: self
    yield path, {n: tuple(t.shape) for n, t in zip(names, examples)}


def _run_json(args):
    out = _kiln._run(args)
    return json.loads(out) if out.strip() else {}


def convert(source, output, target="cpu", quantize=None, calib=None,
            input_shape=None, example_input=None, **options):
    """Compiles SOURCE into OUTPUT (a .kiln file, or --target onnx's .onnx),
    as `kiln convert` does, and returns its report (`convert --json`).

    source: a .onnx, .pt or .kir path, or a torch.nn.Module (traced with
        example_input to TorchScript first).
    target: "cpu", "vulkan", "nnapi", "metal" or "onnx".
    quantize: None, "fp16", "int8-dynamic" or "int8".
    calib: int8's calibration samples: a path (a folder of images or
        .npy/.npz files, one such file, or a list file), or any iterable of
        numpy arrays or dicts of arrays by input name (see calibrate()).
    input_shape: "1x3x224x224", (1, 3, 224, 224) or {name: shape}.
    options: any other `kiln convert` flag, by name: fallback="cpu",
        on_cpu=["add"], keep_float=["fc"], calib_stats="x.kcal", O=1, ...
    """
    with tempfile.TemporaryDirectory(prefix="kiln-") as folder, \
            _model_path(source, example_input, folder) as (path, shapes):
        input_shape = shapes if input_shape is None else input_shape
        args = ["convert", path, "-o", os.fspath(output), "--target", target,
                "--json"] + _shape_args(input_shape)
        if quantize:
            args += ["--quantize", quantize]
        if calib is not None:
            if _is_path(calib):
                args += ["--calib", os.fspath(calib)]
            else:
                stats = os.path.join(folder, "calib.kcal")
                calibrate(path, calib, stats, input_shape=input_shape,
                          target=target, opt_level=options.get("O"))
                args += ["--calib-stats", stats]
        opt_level = options.pop("O", None)
        if opt_level is not None:
            args += ["-O", str(opt_level)]
        return _run_json(args + _flag_args(options))


def calibrate(source, samples, output, input_shape=None, target="cpu",
              threads=None, bins=None, engine="runtime", opt_level=None,
              **options):
    """Computes int8 calibration statistics of SOURCE over SAMPLES into
    OUTPUT (.kcal), for convert(..., calib_stats=OUTPUT) or
    `kiln convert --calib-stats`.

    samples: a path (as `kiln calibrate --calib`, with its preprocessing
        options: calib_resize=, calib_mean=, ...), or any iterable of numpy
        arrays (or dicts of arrays by input name) such as a DataLoader's
        batches after .numpy(). Each array is cut into samples as an .npy
        file is (one more axis than the input: one sample per slice; the
        input's rank: along its batch axis). The iterable is read as
        calibration runs, a few batches ahead, so memory does not grow with
        its length and a DataLoader's workers keep running; the statistics
        (and the .kcal bytes) are those of the same samples on disk.
    target: whose pipeline the model is calibrated after (the one its int8
        conversion runs).
    Returns {"output", "samples", "engine"}.
    """
    with tempfile.TemporaryDirectory(prefix="kiln-") as folder, \
            _model_path(source, options.pop("example_input", None), folder) as (path, shapes):
        input_shape = shapes if input_shape is None else input_shape
        if _is_path(samples):
            args = ["calibrate", path, "--calib", os.fspath(samples), "-o",
                    os.fspath(output), "--json"] + _shape_args(input_shape)
            if target != "cpu":
                raise _kiln.UsageError("calibration from files runs the cpu "
                                       "pipeline (as `kiln calibrate`)")
            if opt_level is not None:
                args += ["-O", str(opt_level)]
            if threads is not None:
                options["threads"] = threads
            if bins is not None:
                options["calib_bins"] = bins
            options["calib_engine"] = engine
            stats = _run_json(args + _flag_args(options))
            return {"output": os.fspath(output), "samples": stats.get("samples"),
                    "engine": stats.get("engine")}
        if options:
            raise _kiln.UsageError("calibration from an iterable takes no "
                                   f"file options: {', '.join(sorted(options))}")
        shapes = _shape_args(input_shape)[1::2]
        return _kiln._calibrate_iterable(
            path, samples, os.fspath(output), shapes, target, threads,
            bins, engine,
            -1 if opt_level is None else int(opt_level), _kiln.__version__)


def merge(shards, output):
    """Merges .kcal shards (`kiln calibrate --shard i/n` or calibrate() on
    parts of the data) into OUTPUT, as `kiln calibrate --merge` does."""
    _kiln._run(["calibrate", "--merge"] + [os.fspath(s) for s in shards] +
               ["-o", os.fspath(output)])


def diff(a, b, inputs=None, per_layer=False, isolated=False, input_shape=None,
         **options):
    """Compares models A and B (any of .onnx, .pt, .kir, .kiln) on INPUTS as
    `kiln diff --json` does and returns its report: structure, per-output
    error metrics (max abs, cosine, SQNR), and with per_layer every matched
    layer's; isolated=True runs each of B's layers on A's values.

    inputs: None (seeded random samples), a .npz path, or a dict of arrays
        by input name. Gates (min_sqnr=, max_abs_err=, min_cosine=, ...)
        raise kiln.GateError with the report in .output when they fail.
    """
    with tempfile.TemporaryDirectory(prefix="kiln-") as folder:
        args = ["diff", os.fspath(a), os.fspath(b), "--json"] + _shape_args(input_shape)
        if inputs is not None:
            if not _is_path(inputs):
                import numpy as np
                path = os.path.join(folder, "inputs.npz")
                np.savez(path, **{k: np.asarray(v) for k, v in inputs.items()})
                inputs = path
            args += ["--inputs", os.fspath(inputs)]
        if per_layer:
            args.append("--per-layer")
        if isolated:
            args.append("--isolated")
        return _run_json(args + _flag_args(options))


def inspect(path, **options):
    """What `kiln inspect --format json` reports of a model or .kiln file:
    ops, shapes, sizes, metadata, per-operator kernels."""
    return _run_json(["inspect", os.fspath(path), "--format", "json"] +
                     _flag_args(options))


def verify(path):
    """Checks a .kiln file completely (structure, every weight segment's
    hash, the tail guard) as `kiln verify --json`; raises
    kiln.InvalidInputError listing what is damaged."""
    return _run_json(["verify", os.fspath(path), "--json"])
