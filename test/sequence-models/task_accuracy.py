"""Accuracy of a file's logits on a labelled set, and int8 against fp32:
task_accuracy.py LABELS.npy FP32.npz [INT8.npz MAX_DROP MIN_FP32]. Prints
the accuracy of each (percent of argmax equal to the label), the int8
logits' SQNR against fp32's, and whether int8 loses at most MAX_DROP points
from an fp32 model that reaches MIN_FP32 (that is, one that learned the
task)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lit", "quant", "Inputs"))
from sqnr import sqnr_db  # noqa: E402


def accuracy(logits, labels):
    return 100.0 * float(np.mean(logits.argmax(axis=1) == labels))


def main():
    labels = np.load(sys.argv[1])
    fp32 = np.load(sys.argv[2])["output"]
    a32 = accuracy(fp32, labels)
    print("fp32 accuracy %.1f" % a32)
    if len(sys.argv) < 5:
        return 0
    int8 = np.load(sys.argv[3])["output"]
    a8, drop = accuracy(int8, labels), float(sys.argv[4])
    sqnr = sqnr_db(int8, fp32)
    ok = a32 - a8 <= drop and a32 >= float(sys.argv[5])
    print("int8 accuracy %.1f, %.1f points from fp32 (at most %g, fp32 at "
          "least %s): %s; logits sqnr %.1f dB"
          % (a8, a32 - a8, drop, sys.argv[5], "ok" if ok else "BAD", sqnr))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
