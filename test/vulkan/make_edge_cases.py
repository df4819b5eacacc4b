#!/usr/bin/env python3
"""Writes the Vulkan kernel edge cases, kernels/*.kir: small graphs whose
shapes stress what C4 kernels get wrong (channels not divisible by 4, odd
spatial sizes, stride 2 with padding, dilation, groups, depthwise with a
multiplier, broadcasts, concatenation at unaligned channel offsets,
bilinear resize, channel shuffle). Weights are seeded random values, so the
files are reproducible; kiln-vulkan-e2e runs each on random inputs against
the reference interpreter (naive loops).

    python3 test/vulkan/make_edge_cases.py
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261126)


def dense(n):
    return "dense[" + ", ".join(f"{rng.uniform(-1, 1):.6f}" for _ in range(n)) + "]"


def conv_out(size, k, s, p0, p1, d):
    return (size + p0 + p1 - d * (k - 1) - 1) // s + 1


def conv_case(name, c, h, w, oc, k, s=1, pads=(0, 0, 0, 0), d=1, group=1,
              act=None):
    oh = conv_out(h, k, s, pads[0], pads[2], d)
    ow = conv_out(w, k, s, pads[1], pads[3], d)
    lines = [f"graph @{name}(%x: f32[1,{c},{h},{w}]) -> (%y: f32[1,{oc},{oh},{ow}]) {{",
             f"  %w = const f32[{oc},{c // group},{k},{k}] {dense(oc * (c // group) * k * k)}",
             f"  %b = const f32[{oc}] {dense(oc)}",
             f"  {'%c' if act else '%y'} = conv(%x, %w, %b) {{strides=[{s}, {s}], pads=[{', '.join(map(str, pads))}], "
             f"dilations=[{d}, {d}], group={group}}} : f32[1,{oc},{oh},{ow}]"]
    last = "%c" if act else "%y"
    if act == "relu6":
        lines.append(f"  %y = clip(%c) {{min=0.0, max=6.0}} : f32[1,{oc},{oh},{ow}]")
        last = "%y"
    elif act == "relu":
        lines.append(f"  %y = relu(%c) : f32[1,{oc},{oh},{ow}]")
        last = "%y"
    lines.append(f"  return {last}")
    lines.append("}")
    return "\n".join(lines) + "\n"


CASES = {
    "conv_c5_oc7_stride2_pad1": conv_case("conv_a", 5, 9, 11, 7, 3, 2, (1, 1, 1, 1)),
    "conv_dilation2_relu": conv_case("conv_b", 6, 13, 10, 10, 3, 1, (2, 2, 2, 2), 2,
                                     act="relu"),
    "conv_asymmetric_pads_5x5": conv_case("conv_c", 3, 8, 7, 5, 5, 1, (1, 2, 2, 1)),
    "conv_1x1_c13_oc3": conv_case("conv_d", 13, 5, 5, 3, 1),
    "conv_groups3": conv_case("conv_e", 6, 7, 9, 9, 3, 1, (1, 1, 1, 1), group=3),
    "depthwise_c10_stride2_relu6": conv_case("dw_a", 10, 11, 9, 10, 3, 2, (1, 1, 1, 1),
                                             group=10, act="relu6"),
    "depthwise_multiplier2": conv_case("dw_b", 3, 6, 7, 6, 3, 1, (1, 1, 1, 1), group=3),
}

CASES["broadcast_binary"] = f"""graph @bcast(%x: f32[1,5,7,9], %s: f32[1,5,1,1], %r: f32[1,1,7,9]) -> (%y: f32[1,5,7,9]) {{
  %w = const f32[3,5,1,1] {dense(15)}
  %k = const f32[1] {dense(1)}
  %a = mul(%x, %s) : f32[1,5,7,9]
  %b = add(%a, %r) : f32[1,5,7,9]
  %c = sub(%b, %k) : f32[1,5,7,9]
  %y = sigmoid(%c) : f32[1,5,7,9]
  return %y
}}
"""

CASES["pools_odd"] = """graph @pools(%x: f32[1,6,9,11]) -> (%m: f32[1,6,5,6], %a: f32[1,6,5,6], %g: f32[1,6,1,1]) {
  %m = max_pool(%x) {kernel=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]} : f32[1,6,5,6]
  %a = avg_pool(%x) {kernel=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0} : f32[1,6,5,6]
  %g = global_avg_pool(%x) : f32[1,6,1,1]
  return %m, %a, %g
}
"""

CASES["avg_pool_count_pad"] = """graph @avgpad(%x: f32[1,7,8,5]) -> (%a: f32[1,7,4,3]) {
  %a = avg_pool(%x) {kernel=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1} : f32[1,7,4,3]
  return %a
}
"""

CASES["concat_unaligned"] = f"""graph @cat(%x: f32[1,3,5,6], %z: f32[1,2,5,6]) -> (%y: f32[1,10,5,6]) {{
  %w = const f32[5,3,1,1] {dense(15)}
  %b = const f32[5] {dense(5)}
  %c = conv(%x, %w, %b) {{strides=[1, 1], pads=[0, 0, 0, 0], dilations=[1, 1], group=1}} : f32[1,5,5,6]
  %y = concat(%x, %c, %z) {{axis=1}} : f32[1,10,5,6]
  return %y
}}
"""

CASES["resize_bilinear"] = """graph @rs(%x: f32[1,5,7,9]) -> (%y: f32[1,5,14,17]) {
  %sizes = const i64[4] dense[1, 5, 14, 17]
  %y = resize(%x, none, none, %sizes) {mode="linear", coordinate_transformation_mode="half_pixel"} : f32[1,5,14,17]
  return %y
}
"""

CASES["channel_shuffle"] = """graph @shuffle(%x: f32[1,6,5,3]) -> (%y: f32[1,6,5,3]) {
  %s1 = const i64[5] dense[1, 2, 3, 5, 3]
  %r = reshape(%x, %s1) : f32[1,2,3,5,3]
  %t = transpose(%r) {perm=[0, 2, 1, 3, 4]} : f32[1,3,2,5,3]
  %s2 = const i64[4] dense[1, 6, 5, 3]
  %y = reshape(%t, %s2) : f32[1,6,5,3]
  return %y
}
"""

CASES["classifier_head"] = f"""graph @head(%x: f32[1,7,3,5]) -> (%p: f32[1,3]) {{
  %g = global_avg_pool(%x) : f32[1,7,1,1]
  %f = flatten(%g) {{axis=1}} : f32[1,7]
  %w = const f32[3,7] {dense(21)}
  %b = const f32[3] {dense(3)}
  %l = linear(%f, %w, %b) : f32[1,3]
  %p = softmax(%l) {{axis=1}} : f32[1,3]
  return %p
}}
"""

# One concat dispatch takes up to seven inputs: five at unaligned channel
# offsets, two graph inputs among them (read straight or through the
# NCHW -> C4 transpose); nine (two dispatches, the second starting at an
# unaligned channel, inputs repeated); along H; and of PLAIN rank-2 tensors.
CASES["concat_5_unaligned"] = f"""graph @cat5(%a: f32[1,3,4,5], %b: f32[1,1,4,5], %c: f32[1,6,4,5], %d: f32[1,2,4,5]) -> (%y: f32[1,17,4,5]) {{
  %w = const f32[5,3,1,1] {dense(15)}
  %k = const f32[5] {dense(5)}
  %e = conv(%a, %w, %k) {{strides=[1, 1], pads=[0, 0, 0, 0], dilations=[1, 1], group=1}} : f32[1,5,4,5]
  %r = relu(%c) : f32[1,6,4,5]
  %y = concat(%a, %b, %r, %d, %e) {{axis=1}} : f32[1,17,4,5]
  return %y
}}
"""

CASES["concat_9_two_dispatches"] = """graph @cat9(%a: f32[1,1,3,4], %b: f32[1,2,3,4], %c: f32[1,3,3,4], %d: f32[1,5,3,4]) -> (%y: f32[1,21,3,4]) {
  %y = concat(%a, %b, %c, %a, %d, %b, %c, %a, %c) {axis=1} : f32[1,21,3,4]
  return %y
}
"""

CASES["concat_h_axis"] = """graph @cath(%a: f32[1,5,2,3], %b: f32[1,5,3,3], %c: f32[1,5,1,3]) -> (%y: f32[1,5,6,3]) {
  %y = concat(%a, %b, %c) {axis=2} : f32[1,5,6,3]
  return %y
}
"""

CASES["concat_plain_rank2"] = """graph @cat2(%a: f32[1,7], %b: f32[1,5], %c: f32[1,3]) -> (%y: f32[1,15]) {
  %y = concat(%a, %b, %c) {axis=1} : f32[1,15]
  return %y
}
"""

# With fp16 a graph output written by a kernel's f32-output variant
# (fully_connected_f16_f32) and one that another operator also reads (an
# fp16 copy, converted last), side by side.
CASES["outputs_f32_and_read"] = f"""graph @outs(%x: f32[1,9]) -> (%l: f32[1,6], %p: f32[1,6], %q: f32[1,4]) {{
  %w = const f32[6,9] {dense(54)}
  %b = const f32[6] {dense(6)}
  %l = linear(%x, %w, %b) : f32[1,6]
  %p = softmax(%l) {{axis=1}} : f32[1,6]
  %v = const f32[4,9] {dense(36)}
  %q = linear(%x, %v, none) : f32[1,4]
  return %l, %p, %q
}}
"""

# conv2d_c4's tiles and runs: 40 input channels are fp16 runs of 16, 16
# and 8 channels; 18 output channels are five blocks, so the last pair
# computes a block twice and stores it once; 7 columns end in a partial
# tile of four; a batch of 2 takes the image from the workgroup id. A 1x1
# window keeps each output a 40-term sum: with 3x3 (360 terms of unscaled
# random weights) outputs near zero differ from the interpreter's by more
# than 1e-4 of themselves through fp32 summation order alone.
CASES["conv_1x1_c40_oc18_batch2"] = conv_case("conv_f", 40, 6, 7, 18, 1,
                                              act="relu").replace("f32[1,", "f32[2,")

for name, text in CASES.items():
    with open(os.path.join(HERE, "kernels", name + ".kir"), "w") as f:
        f.write(f"// Generated by test/vulkan/make_edge_cases.py: {name}.\n" + text)
print(f"{len(CASES)} edge cases")
