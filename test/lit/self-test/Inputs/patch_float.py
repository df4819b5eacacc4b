"""patch_float.py IN OUT OLD NEW: a copy of IN with the first little-endian
float32 equal to OLD (as numpy rounds it) replaced by NEW ("nan", "-1",
...), in place. Fails if OLD is not there."""
import struct
import sys

import numpy as np


def main():
    src, dst, old, new = sys.argv[1:5]
    data = bytearray(open(src, "rb").read())
    at = data.find(struct.pack("<f", float(np.float32(old))))
    if at < 0:
        sys.exit("%s is not in %s" % (old, src))
    data[at:at + 4] = struct.pack("<f", float(new))
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
