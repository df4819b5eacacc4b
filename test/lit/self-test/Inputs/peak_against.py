"""peak_against.py REF.npz OUTPUT: reads `kiln inspect --json` on stdin and
checks that the self-test's peak for OUTPUT is max |REF[OUTPUT]| (PyTorch's
output for the same sample) within 1e-4 relative."""
import json
import sys

import numpy as np


def main():
    ref, name = sys.argv[1:3]
    want = float(np.abs(np.load(ref)[name]).max())
    outputs = json.load(sys.stdin)["self_test"]["outputs"]
    got = next(o["peak"] for o in outputs if o["output"] == name)
    rel = abs(got - want) / want
    print("peak of %s: %s against PyTorch (relative %.1e)" %
          (name, "ok" if rel <= 1e-4 else "WRONG", rel))
    sys.exit(0 if rel <= 1e-4 else 1)


if __name__ == "__main__":
    main()
