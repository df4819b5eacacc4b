"""Checks a batch-polymorphic run against references.
usage: batch_compare.py LABELS.npy ALL.npz EACH.npz REFERENCE.npz SINGLE.npz
ALL: one run of every image; EACH: one run per image (a static batch-1
file); REFERENCE: the ONNX model in kiln's interpreter; SINGLE: the first
image alone through the polymorphic file."""
import sys

import numpy as np

labels = np.load(sys.argv[1])
every, each, ref, single = (np.load(p)["logits"] for p in sys.argv[2:6])
top1 = lambda l: 100.0 * float((l.argmax(1) == labels).mean())
print(f"images: {len(labels)}, all-at-once {every.shape}, one-by-one {each.shape}")
print(f"top-1 all at once {top1(every):.1f}%, one by one {top1(each):.1f}%, "
      f"same predictions: {'yes' if (every.argmax(1) == each.argmax(1)).all() else 'NO'}")
print(f"max |all - one by one| <= 1e-5: {'yes' if np.abs(every - each).max() <= 1e-5 else 'NO'}")
print(f"max |all - interpreter| <= 1e-4: {'yes' if np.abs(every - ref).max() <= 1e-4 else 'NO'}")
print(f"single image {single.shape} equals row 0: "
      f"{'yes' if np.abs(single[0] - every[0]).max() <= 1e-5 else 'NO'}")
