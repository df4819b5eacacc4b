"""kiln.convert and kiln.Session against PyTorch, the CLI and numpy."""
import threading

import numpy as np
import pytest

import kiln
from conftest import python_ran_during


def rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_resnet18_matches_pytorch(resnet18, tmp_path):
    import torch
    model, onnx_path = resnet18
    out = tmp_path / "r.kiln"
    report = kiln.convert(onnx_path, out)
    assert report["output"] == str(out) and report["target"] == "cpu"
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    s = kiln.Session(out)
    assert [i["name"] for i in s.inputs] == ["input"]
    got = s.run({"input": x})["logits"]
    assert got.shape == (1, 1000) and got.dtype == np.float32
    assert rel_err(got, want) < 1e-4


def test_module_source_traced(tmp_path):
    import torch
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(8, 5))
    example = torch.randn(1, 3, 16, 16)
    out = tmp_path / "m.kiln"
    kiln.convert(model, out, example_input=example)
    with torch.no_grad():
        want = model(example).numpy()
    got = kiln.Session(out).run(example.numpy())
    assert rel_err(next(iter(got.values())), want) < 1e-5
    assert model.training  # the module's mode is left as it was


def test_session_matches_cli_run(mobilenet, mobilenet_input, tmp_path, cli):
    out = tmp_path / "m.kiln"
    kiln.convert(mobilenet, out, quantize="fp16")
    x = mobilenet_input[mobilenet_input.files[0]]
    np.save(tmp_path / "x.npy", x)
    cli("run", out, "--input", tmp_path / "x.npy", "-o", tmp_path / "y.npz",
        "--threads", "1")
    want = np.load(tmp_path / "y.npz")
    got = kiln.Session(out, threads=1).run(x)
    assert sorted(got) == sorted(want.files)
    for name in got:
        np.testing.assert_array_equal(got[name], want[name])


def test_session_inputs_outputs_resize_profile(shapes_model, tmp_path):
    out = tmp_path / "s.kiln"
    kiln.convert(shapes_model, out)
    s = kiln.Session(out)
    (inp,) = s.inputs
    # The shapes model's batch is symbolic: the CPU file takes any batch.
    assert inp["dtype"] == np.float32 and inp["shape"] == (None, 1, 16, 16)
    assert [o["name"] for o in s.outputs] == ["logits"]
    assert s.target == "cpu"
    x = np.random.default_rng(4).standard_normal((3, 1, 16, 16)).astype(np.float32)
    ones = [s.run(x[i:i + 1])["logits"][0] for i in range(3)]
    three = s.run(x)["logits"]  # the session resizes itself
    assert three.shape == (3, 10)
    for row, one in zip(three, ones):
        np.testing.assert_allclose(row, one, rtol=1e-5, atol=1e-6)
    s.resize({"image": (2, 1, 16, 16)})
    assert s.inputs[0]["shape"] == (None, 1, 16, 16)
    with pytest.raises(kiln.UsageError):
        s.resize({"image": (2, 3, 16, 16)})
    ops = s.profile(x[:2])
    assert len(ops) == kiln.inspect(out)["operators"]
    assert all(op["ms"] >= 0 and op["engine"] for op in ops)


def test_input_array_is_the_input_without_a_copy(mobilenet, mobilenet_input,
                                                 shapes_model, tmp_path):
    out = tmp_path / "m.kiln"
    kiln.convert(mobilenet, out)
    x = mobilenet_input[mobilenet_input.files[0]]
    s = kiln.Session(out, threads=1)
    want = next(iter(s.run(x).values()))
    name = s.inputs[0]["name"]
    view = s.input_array(name)
    assert view.shape == x.shape and view.dtype == np.float32
    assert view.flags.writeable and not view.flags.owndata
    np.testing.assert_array_equal(view, x)  # the bytes run() copied in
    view[...] = 0
    zeros = next(iter(s.run().values()))
    assert not np.array_equal(zeros, want)
    np.copyto(view, x)
    np.testing.assert_array_equal(next(iter(s.run().values())), want)
    # Passed back to run(), the view is not copied onto itself.
    np.testing.assert_array_equal(next(iter(s.run({name: view}).values())), want)
    assert s.input_array(0).__array_interface__["data"][0] == \
        view.__array_interface__["data"][0]
    with pytest.raises(kiln.UsageError, match="no input 'nope'"):
        s.input_array("nope")
    # The view keeps the session's memory after close(); the session's
    # calls are refused.
    s.close()
    view[...] = 1
    assert float(view.sum()) == view.size
    with pytest.raises(kiln.UsageError, match="closed"):
        s.run()
    del view

    # A resize to other shapes would move the bytes: refused while a view
    # exists, done once it is gone.
    out = tmp_path / "s.kiln"
    kiln.convert(shapes_model, out)
    s = kiln.Session(out)
    view = s.input_array("image")
    with pytest.raises(kiln.UsageError, match="input_array"):
        s.resize({"image": (2, 1, 16, 16)})
    with pytest.raises(kiln.UsageError, match="input_array"):
        s.run(np.zeros((3, 1, 16, 16), np.float32))
    del view
    assert s.run(np.zeros((3, 1, 16, 16), np.float32))["logits"].shape == (3, 10)


def test_two_sessions_on_two_threads(mobilenet, mobilenet_input, tmp_path):
    out = tmp_path / "m.kiln"
    kiln.convert(mobilenet, out)
    x = mobilenet_input[mobilenet_input.files[0]]
    want = next(iter(kiln.Session(out, threads=1).run(x).values()))
    results, errors = {}, []

    def work(i):
        try:
            s = kiln.Session(out, threads=1)
            results[i] = [next(iter(s.run(x).values())) for _ in range(20)]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for runs in results.values():
        for r in runs:
            np.testing.assert_array_equal(r, want)


def test_run_releases_the_gil(resnet18, tmp_path):
    _, onnx_path = resnet18
    out = tmp_path / "r.kiln"
    kiln.convert(onnx_path, out)
    x = np.random.default_rng(2).standard_normal((1, 3, 224, 224)).astype(np.float32)
    s = kiln.Session(out, threads=1)
    assert python_ran_during(lambda: s.run(x)) > 10


def test_errors(tmp_path, mobilenet):
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.convert(tmp_path / "missing.onnx", tmp_path / "x.kiln")
    assert "missing.onnx" in str(e.value) and e.value.exit_code == 1
    assert e.value.file == str(tmp_path / "missing.onnx")

    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07not a protobuf at all" * 10)
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.convert(bad, tmp_path / "x.kiln")
    assert "bad.onnx" in str(e.value)
    assert not (tmp_path / "x.kiln").exists()

    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.Session(tmp_path / "missing.kiln")
    assert "missing.kiln" in str(e.value)

    out = tmp_path / "m.kiln"
    kiln.convert(mobilenet, out)
    s = kiln.Session(out)
    with pytest.raises(kiln.UsageError) as e:
        s.run(np.zeros((1, 3, 32, 32), np.float32))
    assert "32" in str(e.value)
    with pytest.raises(kiln.UsageError) as e:
        s.run(np.zeros((1, 3, 64, 64), np.float64))
    assert "float64" in str(e.value) and "float32" in str(e.value)
    with pytest.raises(kiln.UsageError):
        s.run({"nope": np.zeros((1, 3, 64, 64), np.float32)})
    with pytest.raises(kiln.UsageError):
        kiln.convert(mobilenet, out, target="gpu9000")
    s.close()
    with pytest.raises(kiln.UsageError):
        s.run(np.zeros((1, 3, 64, 64), np.float32))


def test_unsupported_model(tmp_path):
    import onnx
    from onnx import TensorProto, helper
    node = helper.make_node("Frobnicate", ["x"], ["y"], domain="com.example")
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.example", 1)])
    path = tmp_path / "frob.onnx"
    onnx.save(model, path)
    with pytest.raises(kiln.UnsupportedModelError) as e:
        kiln.convert(path, tmp_path / "x.kiln")
    assert "Frobnicate" in str(e.value) and "frob.onnx" in str(e.value)
    assert isinstance(e.value, kiln.InvalidInputError)


def test_self_test(tmp_path):
    """kiln.convert(self_test=True) stores a sample; Session.self_test()
    checks the device against it, and the file's input sample gives the
    output the reference holds."""
    import pathlib
    model = pathlib.Path(__file__).resolve().parents[2] / "examples/models/resnet_small.onnx"
    out = tmp_path / "st.kiln"
    kiln.convert(model, out, self_test=True)
    with kiln.Session(out) as s:
        r = s.self_test()
        assert r["passed"] and r["deterministic"]
        assert r["worst_output"] == "logits" and r["compared"] == 10
        assert 0 <= r["max_error"] <= r["tolerance"]
    plain = tmp_path / "plain.kiln"
    kiln.convert(model, plain)
    with kiln.Session(plain) as s, pytest.raises(kiln.UsageError, match="--self-test"):
        s.self_test()
