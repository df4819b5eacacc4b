"""recurrent-cells.test: inputs and numpy reference of
Inputs/lstm_step_gates_input.kir. Usage: lstm_step.py make DIR |
lstm_step.py check OUT.npz TOL"""
import sys

import numpy as np

G = np.array([[0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 0.3, -2.0],
              [-0.1, 0.8, -1.6, 1.1, 0.4, -0.9, 1.7, 0.6]], np.float32)
C = np.array([[0.2, -0.4], [1.3, -0.7]], np.float32)


def main():
    if sys.argv[1] == "make":
        np.savez(sys.argv[2] + "/step_in.npz", g=G, c=C)
        return 0
    sig = lambda x: 1 / (1 + np.exp(-x))
    g = G.astype(np.float64)
    i, o, f, u = sig(g[:, 0:2]), sig(g[:, 2:4]), sig(g[:, 4:6]), np.tanh(g[:, 6:8])
    want = 2 * o * np.tanh(f * C + i * u)
    got = np.load(sys.argv[2])["out"]
    err = np.abs(got - want).max() / np.abs(want).max()
    print("step: within %s" % sys.argv[3] if err <= float(sys.argv[3])
          else "step: differs by %g" % err)
    return 0 if err <= float(sys.argv[3]) else 1


if __name__ == "__main__":
    sys.exit(main())
