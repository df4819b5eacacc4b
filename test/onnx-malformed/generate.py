#!/usr/bin/python3
"""Writes the malformed ONNX corpus: each file breaks exactly one rule the
importer must enforce (truncation, garbage, sizes, dims, cycles, missing
inputs, external-data paths and ranges, unsupported ops, attribute types,
opsets...). Each has a lit test in test/lit/onnx/ that expects exit code 1 and
a message naming the problem. The symlink case needs a symlink, which the lit
test creates at run time (git and archives handle links unevenly).

Run with Debian's python3 + python3-onnx:
    /usr/bin/python3 test/onnx-malformed/generate.py [OUTDIR]
"""
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
OPSET = [helper.make_opsetid("", 13)]


def vi(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def model(nodes, inits=(), inputs=None, outputs=None, opset=None, name="g"):
    g = helper.make_graph(nodes, name,
                          inputs if inputs is not None else [vi("x", [1, 2])],
                          outputs if outputs is not None else [vi("y", [1, 2])],
                          initializer=list(inits))
    m = helper.make_model(g, opset_imports=opset or OPSET, producer_name="kiln-malformed")
    m.ir_version = 8
    return m


def save(m, name):
    path = os.path.join(OUT, name)
    data = m if isinstance(m, bytes) else m.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)


def weight(name="w", dims=(1, 2)):
    return helper.make_tensor(name, TensorProto.FLOAT, list(dims),
                              np.arange(np.prod(dims), dtype=np.float32).tolist())


def add_model(w):
    return model([helper.make_node("Add", ["x", w.name], ["y"], name="add0")], [w])


def raw(name, dims, nbytes, dtype=TensorProto.FLOAT):
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = bytes(nbytes)
    return t


def external(name, dims, location, offset=None, length=None):
    t = TensorProto()
    t.name = name
    t.data_type = TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", offset), ("length", length)):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return t


def main():
    random.seed(1234)
    valid = add_model(weight()).SerializeToString()
    save(valid[: len(valid) // 2], "truncated.onnx")
    save(bytes(random.randrange(256) for _ in range(512)), "garbage.onnx")
    save(b"", "empty.onnx")
    save(b"\x08\x08", "no_graph.onnx")  # ir_version 8 and nothing else

    save(add_model(raw("w", [1, 2], 4)), "raw_data_short.onnx")
    save(add_model(raw("w", [1, 2], 12)), "raw_data_long.onnx")
    save(add_model(raw("w", [-3, 2], 8)), "negative_dim.onnx")
    save(add_model(raw("w", [1 << 50, 2], 8)), "huge_dim.onnx")
    save(add_model(raw("w", [1 << 20, 1 << 20], 8)), "huge_element_count.onnx")
    t = weight()
    del t.float_data[:]
    t.float_data.extend([1.0, 2.0, 3.0])
    save(add_model(t), "typed_field_count.onnx")
    t = helper.make_tensor("w", TensorProto.STRING, [1, 2], [b"a", b"b"])
    save(add_model(t), "string_initializer.onnx")

    save(model([helper.make_node("Add", ["x", "t2"], ["t1"], name="first"),
                helper.make_node("Relu", ["t1"], ["t2"], name="second"),
                helper.make_node("Identity", ["t1"], ["y"], name="out")]),
         "cycle.onnx")
    save(model([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add0")]),
         "missing_input.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="r0"),
                helper.make_node("Relu", ["x"], ["y"], name="r1")]),
         "duplicate_output.onnx")

    # External data: a 16-byte file beside the models.
    with open(os.path.join(OUT, "external_data.bin"), "wb") as f:
        f.write(np.arange(4, dtype=np.float32).tobytes())
    save(add_model(external("w", [1, 2], "../external_data.bin")), "external_dotdot.onnx")
    save(add_model(external("w", [1, 2], "/etc/passwd")), "external_absolute.onnx")
    save(add_model(external("w", [1, 2], "link.bin")), "external_symlink.onnx")
    save(add_model(external("w", [1, 2], "external_data.bin", 8, 64)),
         "external_past_end.onnx")
    save(add_model(external("w", [1, 2], "external_data.bin", (1 << 64) - 4, 8)),
         "external_offset_overflow.onnx")
    save(add_model(external("w", [1, 2], "no_such_file.bin")), "external_missing.onnx")
    save(add_model(external("w", [1, 2], "external_data.bin", 0, 12)),
         "external_wrong_length.onnx")

    save(model([helper.make_node("FooBar", ["x"], ["y"], name="foo0")]), "unknown_op.onnx")
    save(model([helper.make_node("Sin", ["x"], ["a"], name="sin0"),
                helper.make_node("Relu", ["a"], ["b"], name="relu0"),
                helper.make_node("Hardmax", ["b"], ["c"], name="hardmax0"),
                helper.make_node("Frobnicate", ["c"], ["y"], name="frob0",
                                 domain="com.example")],
               opset=OPSET + [helper.make_opsetid("com.example", 1)]),
         "unsupported_ops.onnx")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], name="conv0", kernel_shape=[1, 1])
    conv.attribute.append(helper.make_attribute("strides", 1.5))
    save(model([conv], [weight("w", (2, 2, 1, 1))],
               inputs=[vi("x", [1, 2, 4, 4])], outputs=[vi("y", [1, 2, 4, 4])]),
         "bad_attribute_type.onnx")
    save(model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv_12", group=3)],
               [weight("w", (3, 10, 3, 3))],
               inputs=[vi("x", [1, 32, 8, 8])], outputs=[vi("y", [1, 3, 6, 6])]),
         "conv_group_mismatch.onnx")
    save(model([helper.make_node("Relu", ["x"], ["y"], name="r0")],
               opset=[helper.make_opsetid("", 99)]), "bad_opset.onnx")
    seq = helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, [2])
    save(model([helper.make_node("Identity", ["x"], ["y"], name="id0")],
               inputs=[seq], outputs=[seq]), "sequence_input.onnx")

    window_models()
    value_models()


def int64s(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def value_models():
    """Attribute and constant-input values that size an output: each is
    legal in type and rank, but names an element that does not exist or a
    size below zero, or leaves an axis with no elements.
    """
    img = [vi("x", [1, 3, 8, 8])]
    any4 = [vi("y", [None] * 4)]

    def one(node, file, inits=(), outputs=None, inputs=None):
        save(model([node], inits, inputs=inputs or img,
                   outputs=outputs or any4), file)

    # TopK's k (an input) larger than the axis it selects from.
    one(helper.make_node("TopK", ["x", "k"], ["y", "i"], name="topk_k9",
                         axis=3),
        "topk_k_too_large.onnx", [int64s("k", [9])],
        outputs=[vi("y", [None] * 4), vi("i", [None] * 4, TensorProto.INT64)])
    # Gather with constant indices past the axis (3 channels; index 5).
    one(helper.make_node("Gather", ["x", "idx"], ["y"], name="gather_oob",
                         axis=1),
        "gather_index_out_of_range.onnx", [int64s("idx", [0, 5])])
    # LRN's size is a window: 0 divides its alpha.
    one(helper.make_node("LRN", ["x"], ["y"], name="lrn_s0", size=0),
        "lrn_zero_size.onnx")
    # Split with a negative size (the sizes sum to the axis: 3 + -1 + 6).
    one(helper.make_node("Split", ["x", "sizes"], ["y", "z", "w"],
                         name="split_neg", axis=3),
        "split_negative_size.onnx", [int64s("sizes", [3, -1, 6])],
        outputs=[vi("y", [None] * 4), vi("z", [None] * 4), vi("w", [None] * 4)])
    # Tile with a negative repeat.
    one(helper.make_node("Tile", ["x", "reps"], ["y"], name="tile_neg"),
        "tile_negative_repeats.onnx", [int64s("reps", [1, 1, -2, 1])])
    # Pad with negative pads that remove the whole width (8 = 4 + 4).
    one(helper.make_node("Pad", ["x", "pads"], ["y"], name="pad_empty"),
        "pad_empties_axis.onnx", [int64s("pads", [0, 0, 0, -4, 0, 0, 0, -4])])
    # Resize with a NaN and a negative scale.
    for file, bad in (("resize_nan_scale.onnx", float("nan")),
                      ("resize_negative_scale.onnx", -2.0)):
        scales = helper.make_tensor("scales", TensorProto.FLOAT, [4],
                                    [1.0, 1.0, bad, 2.0])
        roi = helper.make_tensor("roi", TensorProto.FLOAT, [0], [])
        one(helper.make_node("Resize", ["x", "roi", "scales"], ["y"],
                             name="resize_bad", mode="nearest"),
            file, [roi, scales])
    # Constants whose arithmetic overflowed int64 in shape inference (found
    # by kiln-onnx-fuzzer: a pad of 2^63-4, UBSan), and their neighbours: a
    # tile repeat, a range length and a resize scale that take an axis past
    # the largest dim (2^40); a Split of a scalar (axis 0 of rank 0).
    one(helper.make_node("Pad", ["x", "pads"], ["y"], name="pad_huge"),
        "pad_huge.onnx", [int64s("pads", [0, 0, 0, (1 << 63) - 4, 0, 0, 0, 0])])
    one(helper.make_node("Tile", ["x", "reps"], ["y"], name="tile_huge"),
        "tile_huge_repeats.onnx", [int64s("reps", [1, 1, 1 << 62, 4])])
    save(model([helper.make_node("Range", ["s", "l", "d"], ["y"],
                                 name="range_huge")],
               [helper.make_tensor("s", TensorProto.FLOAT, [], [0.0]),
                helper.make_tensor("l", TensorProto.FLOAT, [], [1e30]),
                helper.make_tensor("d", TensorProto.FLOAT, [], [1.0])],
               inputs=[], outputs=[vi("y", [None])]), "range_huge_length.onnx")
    save(model([helper.make_node("Resize", ["x", "", "scales"], ["y"],
                                 name="resize_huge")],
               [helper.make_tensor("scales", TensorProto.FLOAT, [4],
                                   [1.0, 1.0, 1.0, float(1 << 24)])],
               inputs=[vi("x", [1, 1, 1, 1 << 20])], outputs=any4),
         "resize_scale_past_max_dim.onnx")
    save(model([helper.make_node("Split", ["x"], ["a", "b"], name="split_s",
                                 axis=0, split=[1, 1])],
               inputs=[vi("x", [])], outputs=[vi("a", [None]), vi("b", [None])],
               opset=[helper.make_opsetid("", 11)]), "split_scalar.onnx")

    # ConstantOfShape with a negative dim, added to the input.
    save(model([helper.make_node("ConstantOfShape", ["shape"], ["c"],
                                 name="cos_neg"),
                helper.make_node("Add", ["x", "c"], ["y"], name="add_c")],
               [int64s("shape", [1, 3, -8, 8])], inputs=img, outputs=any4),
         "constantofshape_negative_dim.onnx")


def window_models():
    """Conv/pool attributes that ONNX shape inference divides by or sizes
    from, windows that leave no output, and graph inputs too large to hold.
    """
    img = [vi("x", [1, 3, 8, 8])]
    out = [vi("y", [None] * 4)]

    def spatial(op, name, file, **attrs):
        inits = []
        ins = ["x"]
        if op in ("Conv", "ConvTranspose"):
            inits = [weight("w", (3, 3, 3, 3))]
            ins.append("w")
        save(model([helper.make_node(op, ins, ["y"], name=name, **attrs)],
                   inits, inputs=img, outputs=out), file)

    spatial("Conv", "conv_s0", "conv_zero_strides.onnx", strides=[0, 0])
    spatial("MaxPool", "pool_s0", "maxpool_zero_strides.onnx",
            kernel_shape=[2, 2], strides=[0, 0])
    spatial("AveragePool", "avg_s0", "avgpool_zero_strides.onnx",
            kernel_shape=[2, 2], strides=[0, 0])
    spatial("Conv", "conv_d0", "conv_zero_dilations.onnx", dilations=[1, 0])
    spatial("Conv", "conv_pad40", "conv_huge_pads.onnx",
            pads=[1 << 40, 0, 0, 0])
    spatial("Conv", "conv_negpad", "conv_negative_pads.onnx",
            pads=[-1, 0, 0, 0])
    spatial("MaxPool", "pool_k31", "maxpool_huge_kernel.onnx",
            kernel_shape=[1 << 31, 2])
    spatial("MaxPool", "pool_k0", "maxpool_zero_kernel.onnx",
            kernel_shape=[0, 2])
    spatial("MaxPool", "pool_k16", "maxpool_kernel_too_large.onnx",
            kernel_shape=[16, 16])
    spatial("AveragePool", "avg_k16", "avgpool_kernel_too_large.onnx",
            kernel_shape=[16, 16])
    spatial("MaxPool", "pool_dil", "maxpool_dilated_too_large.onnx",
            kernel_shape=[3, 3], dilations=[4, 4])
    spatial("Conv", "conv_k9", "conv_kernel_too_large.onnx",
            kernel_shape=[3, 3], dilations=[4, 4])
    spatial("ConvTranspose", "deconv_pads", "convtranspose_no_output.onnx",
            pads=[20, 20, 0, 0])
    spatial("ConvTranspose", "deconv_s0", "convtranspose_zero_strides.onnx",
            strides=[0, 1])
    spatial("DepthToSpace", "d2s_b0", "depthtospace_zero_blocksize.onnx",
            blocksize=0)
    # Ranks that libonnx's convPoolShapeInference trusts: a Conv weight of
    # rank 5 beside a rank-4 input made it read its pads past their end (a
    # SEGV found by kiln-onnx-fuzzer); the same weight through an Identity,
    # whose rank is known only during inference; a pooling window with
    # three axes on a 2-D image.
    def conv5(name, file, via_identity=False):
        nodes = []
        w = "w"
        if via_identity:
            nodes.append(helper.make_node("Identity", ["w"], ["w2"], name="w_id"))
            w = "w2"
        nodes.append(helper.make_node("Conv", ["x", w], ["y"], name=name,
                                      pads=[1, 1, 1, 1]))
        save(model(nodes, [weight("w", (3, 3, 3, 3, 3))], inputs=img,
                   outputs=out), file)

    conv5("conv_w5", "conv_weight_rank_above_input.onnx")
    conv5("conv_w5_id", "conv_weight_rank_via_identity.onnx", via_identity=True)
    spatial("MaxPool", "pool_k3d", "maxpool_kernel_rank_above_input.onnx",
            kernel_shape=[2, 2, 2], pads=[0, 0, 0, 0, 0, 0])
    # A graph input of 2^40 elements: each dim is legal, the product is not.
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu0")],
               inputs=[vi("x", [1, 1 << 40])], outputs=[vi("y", [1, 1 << 40])]),
         "huge_input.onnx")


if __name__ == "__main__":
    main()
