"""kiln.inspect, kiln.verify and kiln.diff: the CLI's reports as dicts."""
import json

import numpy as np
import pytest

import kiln


def test_inspect_and_verify(mobilenet, tmp_path, cli):
    out = tmp_path / "m.kiln"
    kiln.convert(mobilenet, out)
    info = kiln.inspect(out)
    assert info == json.loads(cli("inspect", out, "--format", "json"))
    v = kiln.verify(out)
    assert v["ok"] and v["segments_hashed"] > 0
    data = bytearray(out.read_bytes())
    data[-100] ^= 0xFF  # inside the last weight segment
    bad = tmp_path / "bad.kiln"
    bad.write_bytes(bytes(data))
    with pytest.raises(kiln.InvalidInputError) as e:
        kiln.verify(bad)
    assert "bad.kiln" in str(e.value) and "problem" in str(e.value)


def test_diff_per_layer_and_gate(mobilenet, mobilenet_input, tmp_path):
    out = tmp_path / "h.kiln"
    kiln.convert(mobilenet, out, quantize="fp16")
    inputs = {k: mobilenet_input[k] for k in mobilenet_input.files}
    r = kiln.diff(mobilenet, out, inputs=inputs, per_layer=True)
    (o,) = r["outputs"]
    assert o["sqnr_db"] > 40 and len(r["layers"]) > 10
    # Independent check of the output SQNR: the model run by ONNX's
    # reference numbers is not at hand, so compare with the fp32 file.
    f32 = tmp_path / "f.kiln"
    kiln.convert(mobilenet, f32)
    x = inputs[mobilenet_input.files[0]]
    a = next(iter(kiln.Session(f32).run(x).values())).astype(np.float64)
    b = next(iter(kiln.Session(out).run(x).values())).astype(np.float64)
    sqnr = 10 * np.log10((a ** 2).sum() / ((a - b) ** 2).sum())
    assert abs(sqnr - o["sqnr_db"]) < 1.0
    with pytest.raises(kiln.GateError) as e:
        kiln.diff(mobilenet, out, inputs=inputs, min_sqnr=200)
    assert "sqnr" in str(e.value).lower()
    assert json.loads(e.value.output)["gate_failures"]
