"""kiln.Session on the device targets and its target options: a Vulkan file
on the machine's Vulkan device (lavapipe in CI) and an NNAPI file on the
host NNAPI library ctest names, each against the CPU file's output; and
options that reach the runtime (a wrong one fails there, naming it)."""
import os

import numpy as np
import pytest

import kiln


def rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.fixture(scope="module")
def converted(mobilenet, tmp_path_factory):
    work = tmp_path_factory.mktemp("targets")
    paths = {}
    for target in ("cpu", "vulkan", "nnapi"):
        paths[target] = work / f"m.{target}.kiln"
        kiln.convert(mobilenet, paths[target], target=target)
    return paths


@pytest.fixture(scope="module")
def cpu_output(converted, mobilenet_input):
    x = mobilenet_input[mobilenet_input.files[0]]
    return x, next(iter(kiln.Session(converted["cpu"], threads=1).run(x).values()))


def vulkan_session(path, **options):
    try:
        return kiln.Session(path, **options)
    except kiln.KilnError as e:
        no_device = ("no Vulkan driver" in str(e)
                     or "no device with a compute queue" in str(e))
        if "CI" in os.environ or not no_device:
            raise
        pytest.skip(f"no Vulkan device: {e}")


def test_vulkan_file(converted, cpu_output, tmp_path):
    x, want = cpu_output
    s = vulkan_session(converted["vulkan"], vulkan_validation=True,
                       pipeline_cache_dir=tmp_path / "cache", run_timeout_ms=60000)
    assert s.target == "vulkan"
    got = next(iter(s.run(x).values()))
    assert rel_err(got, want) < 1e-4
    s.close()
    assert any((tmp_path / "cache").iterdir())  # the pipeline cache was written
    with pytest.raises(kiln.KilnError, match="99"):
        kiln.Session(converted["vulkan"], vulkan_device=99)


def test_nnapi_file(converted, cpu_output):
    library = os.environ.get("KILN_NNAPI_LIBRARY")
    if not library:
        pytest.fail("KILN_NNAPI_LIBRARY (the host NNAPI library) is not set: "
                    "run through ctest")
    x, want = cpu_output
    s = kiln.Session(converted["nnapi"], nnapi_library=library,
                     nnapi_preference="sustained_speed")
    assert s.target == "nnapi"
    assert rel_err(next(iter(s.run(x).values())), want) < 1e-4
    with pytest.raises(kiln.UsageError, match="index 5 out of range"):
        s.input_array(5)
    with pytest.raises(kiln.UsageError, match="index -1 out of range"):
        s.input_array(np.int64(-1))
    with pytest.raises(kiln.KilnError, match="missing-nnapi.so"):
        kiln.Session(converted["nnapi"], nnapi_library="/nowhere/missing-nnapi.so")
    with pytest.raises(kiln.UsageError, match="nnapi_preference='fastest'"):
        kiln.Session(converted["nnapi"], nnapi_preference="fastest")


@pytest.mark.parametrize("target", ["vulkan", "nnapi"])
def test_input_array_on_a_device_target(target, shapes_model, tmp_path):
    # The trained shapes classifier (its outputs follow its input, unlike
    # the random-weight MobileNet's): two images written into the session's
    # own input bytes give the CPU file's outputs for each.
    shape = {"image": (1, 1, 16, 16)}
    kiln.convert(shapes_model, tmp_path / "c.kiln", input_shape=shape)
    kiln.convert(shapes_model, tmp_path / "d.kiln", target=target,
                 input_shape=shape)
    rng = np.random.default_rng(7)
    a, b = (rng.uniform(0, 1, (1, 1, 16, 16)).astype(np.float32) for _ in "ab")
    cpu = kiln.Session(tmp_path / "c.kiln", threads=1)
    want_a, want_b = (cpu.run(v)["logits"] for v in (a, b))
    assert rel_err(want_a, want_b) > 1e-2
    options = ({"nnapi_library": os.environ["KILN_NNAPI_LIBRARY"]}
               if target == "nnapi" else {})
    s = (vulkan_session if target == "vulkan" else kiln.Session)(
        tmp_path / "d.kiln", **options)
    view = s.input_array("image")
    np.copyto(view, a)
    assert rel_err(s.run()["logits"], want_a) < 1e-4
    view[...] = b
    assert rel_err(s.run()["logits"], want_b) < 1e-4
    with pytest.raises(kiln.UsageError, match="index 5 out of range"):
        s.input_array(5)
    with pytest.raises(kiln.UsageError, match="index -1 out of range"):
        s.input_array(np.int64(-1))


def test_options_reach_the_runtime(converted):
    with pytest.raises(kiln.KilnError, match="above the limit of 1"):
        kiln.Session(converted["cpu"], max_arena_bytes=1)
    with pytest.raises(kiln.UsageError, match="no option 'num_threads'.*threads, "):
        kiln.Session(converted["cpu"], num_threads=2)
    with pytest.raises(kiln.UsageError, match="max_arena_bytes='big' has the wrong type"):
        kiln.Session(converted["cpu"], max_arena_bytes="big")
    s = kiln.Session(converted["cpu"], threads=1, keep_intermediates=True,
                     disable_onednn=True, max_arena_bytes=None)
    assert s.inputs[0]["dtype"] == np.float32
