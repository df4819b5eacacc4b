"""Copies a .kiln file with one bit flipped in its last weight segment: the
file ends with 64 zero bytes after that segment (the tail guard), so the
last nonzero byte before them lies in it. Usage: flip_segment_bit.py IN OUT
"""
import sys

data = bytearray(open(sys.argv[1], "rb").read())
i = len(data) - 64 - 1
while i > 0 and data[i] == 0:
    i -= 1
data[i] ^= 1
open(sys.argv[2], "wb").write(data)
