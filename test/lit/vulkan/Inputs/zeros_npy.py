# Writes an f32 .npy of zeros: zeros_npy.py OUT.npy 1,3,8,8 (no numpy).
import struct
import sys

shape = tuple(int(d) for d in sys.argv[2].split(","))
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
count = 1
for d in shape:
    count *= d
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(b"\0" * (4 * count))
