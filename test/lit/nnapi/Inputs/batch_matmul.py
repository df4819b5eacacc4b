"""batch-matmul.test's inputs and numpy reference.
Usage: batch_matmul.py make DIR | batch_matmul.py check OUT.npz
The model (Inputs/batch_matmul.kir): four matmuls of two graph inputs,
  same:  [2,3,4,5] x [2,3,5,2]   (attention's shape: every batch dim equal)
  right: [2,4,5] x [5,3]         (the right operand broadcast, lower rank)
  left:  [1,4,5] x [3,5,2]       (the left operand broadcast)
  relu:  relu([2,4,5] x [2,5,3]) (a clamp fused into the matmul)."""
import sys

import numpy as np

RNG = np.random.default_rng(11)
SHAPES = {"a1": (2, 3, 4, 5), "b1": (2, 3, 5, 2), "a2": (2, 4, 5), "b2": (5, 3),
          "a3": (1, 4, 5), "b3": (3, 5, 2), "a4": (2, 4, 5), "b4": (2, 5, 3)}


def inputs():
    return {k: RNG.standard_normal(s).astype(np.float32) for k, s in SHAPES.items()}


def main():
    mode, path = sys.argv[1], sys.argv[2]
    x = inputs()
    if mode == "make":
        np.savez(path + "/in.npz", **x)
        return 0
    f = {k: v.astype(np.float64) for k, v in x.items()}
    want = {"same": f["a1"] @ f["b1"], "right": f["a2"] @ f["b2"],
            "left": f["a3"] @ f["b3"], "relu": np.maximum(f["a4"] @ f["b4"], 0)}
    got = np.load(path)
    bad = 0
    for name, w in want.items():
        g = got[name].astype(np.float64)
        err = np.abs(g - w).max() / np.abs(w).max() if g.shape == w.shape else np.inf
        print("%s: %s" % (name, "within 1e-05" if err <= 1e-5 else "differs: %g" % err))
        bad += err > 1e-5
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
