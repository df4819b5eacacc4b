"""Models quantized by PyTorch itself, as users bring them: scaled-down
torchvision MobileNetV2, ResNet-18 and MobileNetV3-large (random weights,
non-trivial BatchNorm statistics), fused and quantized post-training by the FX
API with the `qnnpack` (per-tensor weights) and `fbgemm` (per-channel weights,
reduce_range activations) configs, calibrated on seeded random data. For each
model and config it writes:
  NAME.CFG.onnx        torch.onnx.export, opset 13 (QDQ)
  NAME.CFG.traced.pt   torch.jit.trace of the quantized module
  NAME.CFG.ref.npz     PyTorch's own quantized output on NAME.input.npz
                       (QNNPACK's kernels: Debian's libtorch has no FBGEMM)
  NAME.input.npz, NAME.shape
and mobilenet_v2.eager.{traced.pt,ref.npz}: torchvision's quantizable
MobileNetV2 through eager-mode quantization (QuantStub, fuse_model).
usage: make_fixtures.py [OUTDIR] [--only a,b,eager]
"""
import argparse
import importlib.util
import os
import warnings

import numpy as np
import torch
import torchvision
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

from torchvision.models import resnet

HERE = os.path.dirname(os.path.abspath(__file__))
# The float fixtures' scaled-down ResNet and BatchNorm statistics.
_spec = importlib.util.spec_from_file_location(
    "float_fixtures", os.path.join(HERE, "..", "torchscript-models", "make_fixtures.py"))
_float = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_float)
SmallResNet, randomize_bn = _float.SmallResNet, _float.randomize_bn

SIZE = 64


def models():
    tv = torchvision.models
    return {
        "mobilenet_v2": lambda: tv.mobilenet_v2(width_mult=0.25, num_classes=10),
        "resnet18": lambda: SmallResNet(resnet.BasicBlock, [2, 2, 2, 2]),
        "mobilenet_v3_large": lambda: tv.mobilenet_v3_large(width_mult=0.25,
                                                            num_classes=10),
    }


def quantize(model, engine, gen):
    # Debian's libtorch has no FBGEMM: the fbgemm config's model (per-channel
    # weights, reduce_range activations) runs on QNNPACK's kernels, which
    # take per-channel weights too.
    torch.backends.quantized.engine = "qnnpack"
    example = torch.randn(1, 3, SIZE, SIZE, generator=gen)
    prepared = prepare_fx(model, get_default_qconfig_mapping(engine), (example,))
    with torch.no_grad():
        for _ in range(16):
            prepared(torch.randn(2, 3, SIZE, SIZE, generator=gen))
    return contiguous_before_hardtanh(convert_fx(prepared))


def contiguous_before_hardtanh(q):
    """Debian's PyTorch 1.13 computes a quantized ReLU6/hardtanh of a
    channels-last tensor (what QNNPACK's convolutions return) as if its bytes
    were NCHW: PyTorch's own quantized MobileNetV2 is then wrong. A
    .contiguous() before each one (a no-op in the exported ONNX) gives the
    model's real output; the graph is otherwise the one FX wrote."""
    for node in list(q.graph.nodes):
        if node.op == "call_module" and isinstance(q.get_submodule(node.target),
                                                   torch.nn.Hardtanh):
            with q.graph.inserting_before(node):
                c = q.graph.call_method("contiguous", (node.args[0],))
            node.replace_input_with(node.args[0], c)
    q.graph.lint()
    q.recompile()
    return q


def write(name, build, outdir):
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = build().eval()
    randomize_bn(model, gen)
    x = torch.randn(1, 3, SIZE, SIZE, generator=gen)
    np.savez(os.path.join(outdir, name + ".input.npz"), x=x.numpy())
    with open(os.path.join(outdir, name + ".shape"), "w") as f:
        f.write("1x3x%dx%d\n" % (SIZE, SIZE))
    for engine in ("qnnpack", "fbgemm"):
        q = quantize(model, engine, torch.Generator().manual_seed(2))
        base = os.path.join(outdir, "%s.%s" % (name, engine))
        with torch.no_grad():
            ref = q(x)
            traced = torch.jit.trace(q, x)
        traced.save(base + ".traced.pt")
        np.savez(base + ".ref.npz", output=ref.numpy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(q, x, base + ".onnx", opset_version=13,
                              input_names=["x"], output_names=["output"])
        print("wrote", name, engine)


def write_eager(outdir):
    """Eager-mode post-training quantization, the classic workflow:
    torchvision's quantizable MobileNetV2 (QuantStub/DeQuantStub,
    FloatFunctional adds), fuse_model(), prepare, calibrate, convert."""
    from torchvision.models import quantization as tq
    torch.manual_seed(0)
    torch.backends.quantized.engine = "qnnpack"
    model = tq.mobilenet_v2(weights=None, quantize=False, width_mult=0.25,
                            num_classes=10).eval()
    randomize_bn(model, torch.Generator().manual_seed(1))
    model.fuse_model()
    model.qconfig = torch.ao.quantization.get_default_qconfig("qnnpack")
    torch.ao.quantization.prepare(model, inplace=True)
    gen = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for _ in range(16):
            model(torch.randn(2, 3, SIZE, SIZE, generator=gen))
    torch.ao.quantization.convert(model, inplace=True)
    x = torch.from_numpy(np.load(os.path.join(outdir, "mobilenet_v2.input.npz"))["x"])
    base = os.path.join(outdir, "mobilenet_v2.eager")
    with torch.no_grad():
        np.savez(base + ".ref.npz", output=model(x).numpy())
        torch.jit.trace(model, x).save(base + ".traced.pt")
    print("wrote mobilenet_v2 eager")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=HERE)
    ap.add_argument("--only", help="comma-separated subset of the models")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    torch.set_num_threads(1)
    table = models()
    names = args.only.split(",") if args.only else sorted(table) + ["eager"]
    for name in names:
        if name == "eager":
            write_eager(args.outdir)
        else:
            write(name, table[name], args.outdir)


if __name__ == "__main__":
    main()
