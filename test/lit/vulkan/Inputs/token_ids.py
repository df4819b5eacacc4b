"""token-ids.test's inputs and its check of a file's outputs against numpy.
Usage: token_ids.py make DIR | token_ids.py check OUT.npz [--out-of-range |
--non-negative]. With --out-of-range the ids include indices past the table,
which the GPU gathers give as zeros (the CPU target fails). --non-negative
are ids NNAPI's GATHER takes (no index counted from the end)."""
import sys

import numpy as np

TABLE = np.array([[0.5, -1.0], [2.0, 3.5], [-4.0, 8.0], [16.0, -0.25]], np.float32)
WIDE = np.array([[1, 2, 3, 4, 5], [10, 20, 30, 40, 50]], np.float32)


def inputs(out_of_range, non_negative=False):
    ids = np.array([[3, 0, -1], [2, 1, 0]], np.int64)
    ids32 = np.array([4, -5, 0, 2], np.int32)
    if non_negative:
        ids = np.array([[3, 0, 3], [2, 1, 0]], np.int64)
        ids32 = np.array([4, 0, 1, 2], np.int32)
    if out_of_range:  # past the end, before the start, and past int32
        ids = np.array([[4, -5, 1 << 32], [2, 1, 0]], np.int64)
        ids32 = np.array([5, -6, 0, 2], np.int32)
    return ids, ids32


def gather(table, index, axis):
    n = table.shape[axis]
    ok = (index >= -n) & (index < n)
    safe = np.where(ok, index, 0)
    out = np.take(table, safe, axis=axis)
    mask = ok.reshape([1] * axis + list(index.shape) + [1] * (table.ndim - axis - 1))
    return np.where(mask, out, 0).astype(np.float32)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    out_of_range = "--out-of-range" in sys.argv
    ids, ids32 = inputs(out_of_range, "--non-negative" in sys.argv)
    if mode == "make":
        np.savez(path + "/in.npz", ids=ids, ids32=ids32)
        np.savez(path + "/far.npz", **dict(zip(("ids", "ids32"), inputs(True))))
        np.savez(path + "/nonneg.npz",
                 **dict(zip(("ids", "ids32"), inputs(False, True))))
        return 0
    want = {
        "rows": gather(TABLE, ids, 0),
        "cols": gather(WIDE, ids32, 1),
        "mask": (ids == 0).astype(np.float32),
        "gt": (ids > 2).astype(np.float32),
        "lt": (2 < ids).astype(np.float32),
        "ascend": ids.astype(np.float32),
        "as32": ids32.astype(np.float32),
    }
    got = np.load(path)
    bad = 0
    for name, value in want.items():
        same = got[name].shape == value.shape and np.array_equal(got[name], value)
        print("%s: %s" % (name, "exact" if same else "differs: %s vs %s" % (got[name].tolist(), value.tolist())))
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
