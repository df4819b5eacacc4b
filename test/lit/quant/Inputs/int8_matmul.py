"""int8-matmul.test: inputs for Inputs/int8_matmul.kir, and its outputs
computed independently with numpy's integers: quantize (round half to even,
saturate), the int32 sum of (a - a_zp)(b - b_zp), requantize with the
float32 multiplier a_scale * b_scale / y_scale (XNNPACK's and oneDNN's fp32
requantization), dequantize. Usage: int8_matmul.py make DIR |
int8_matmul.py check OUT.npz DIR"""
import sys

import numpy as np

SA, ZA, SB, ZB, SY, ZY = 0.05, 3, 0.04, -5, 0.02, 7


def quantize(x, s, z):
    q = np.rint(x.astype(np.float32) / np.float32(s)) + z
    return np.clip(q, -128, 127).astype(np.int32)


def product(a, b):
    qa, qb = quantize(a, SA, ZA) - ZA, quantize(b, SB, ZB) - ZB
    acc = np.matmul(qa, qb)  # int32, exact
    mult = np.float32(SA) * np.float32(SB) / np.float32(SY)
    qy = np.clip(np.rint(acc.astype(np.float32) * mult) + ZY, -128, 127)
    return ((qy - ZY) * np.float32(SY)).astype(np.float32)


def main():
    mode = sys.argv[1]
    folder = sys.argv[2] if mode == "make" else sys.argv[3]
    if mode == "make":
        rng = np.random.default_rng(7)
        # Most products in range, a few saturated.
        a = rng.uniform(-1.6, 1.6, (2, 3, 8)).astype(np.float32)
        b = rng.uniform(-1.4, 1.4, (2, 8, 5)).astype(np.float32)
        c = rng.uniform(-1.4, 1.4, (8, 5)).astype(np.float32)
        np.savez(folder + "/in.npz", a=a, b=b, c=c)
        return 0
    ins = np.load(folder + "/in.npz")
    want = {"y": product(ins["a"], ins["b"]), "yb": product(ins["a"], ins["c"])}
    got = np.load(sys.argv[2])
    bad = 0
    for name, value in want.items():
        same = np.array_equal(got[name], value)
        sat = int(np.sum(np.abs(value - (127 - ZY) * np.float32(SY)) < 1e-6) +
                  np.sum(np.abs(value - (-128 - ZY) * np.float32(SY)) < 1e-6))
        print("%s: %s (%d of %d saturated)" % (
            name, "exact" if same else "differs by up to %g" %
            np.abs(got[name] - value).max(), sat, value.size))
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
