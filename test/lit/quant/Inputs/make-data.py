"""Seeded calibration arrays for the lit tests: make-data.py OUT.npy COUNT [SHAPE...]"""
import sys

import numpy as np

out, count = sys.argv[1], int(sys.argv[2])
shape = [int(d) for d in sys.argv[3:]] or [3, 6, 8]
rng = np.random.default_rng(count)
np.save(out, rng.standard_normal([count] + shape).astype(np.float32))
