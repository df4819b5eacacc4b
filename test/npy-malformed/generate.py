#!/usr/bin/env python3
"""Writes the malformed .npy/.npz corpus used by test/lit/npy/*.test.

Each file breaks one rule kiln's reader enforces. Run with Debian's
/usr/bin/python3 (python3-numpy); the outputs are committed.
"""
import io
import os
import struct
import sys
import zipfile

import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def npy(header: str, data: bytes = b"", version=(1, 0)) -> bytes:
    h = header.encode("latin1")
    pad = (64 - (10 + len(h) + 1) % 64) % 64
    h = h + b" " * pad + b"\n"
    if version[0] == 1:
        return b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(h)) + h + data


def good(arr) -> bytes:
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


f4 = np.arange(6, dtype="<f4").tobytes()
write("lying-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", f4))
write("short-data.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4[:-3]))
write("long-data.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f4 + b"\0" * 4))
write("pickled-object.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\x80\x04N."))
write("big-endian.npy", npy("{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }", f4))
write("fortran-order.npy", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f4))
write("overflow-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", f4))
write("huge-header.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{")
write("header-past-end.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 500) + b"{'descr': '<f4'")
write("bad-magic.npy", b"\x93NUMPZ\x01\x00\x10\x00" + b" " * 16)
write("truncated.npy", good(np.zeros((2, 3), np.float32))[:9])
write("not-a-dict.npy", npy("['descr', '<f4']", f4))
write("negative-dim.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", f4))
write("string-dtype.npy", npy("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", b"a\0\0\0" * 4))
write("missing-shape.npy", npy("{'descr': '<f4', 'fortran_order': False, }", f4))
write("empty.npy", b"")

# .npz archives
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr("x.npy", good(np.ones(3, np.float32)))
write("truncated.npz", b.getvalue()[:-30])
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr("x.txt", b"not an array")
write("non-npy-member.npz", b.getvalue())
b = io.BytesIO()
with zipfile.ZipFile(b, "w") as z:
    z.writestr("x.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (9,), }", f4))
write("lying-member.npz", b.getvalue())
# CRC mismatch: flip a data byte inside a stored member.
b = io.BytesIO()
with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
    z.writestr("x.npy", good(np.arange(16, dtype=np.float32)))
raw = bytearray(b.getvalue())
raw[200] ^= 0xFF
write("bad-crc.npz", bytes(raw))
write("garbage.npz", b"PK\x03\x04" + bytes(range(256)) * 2)

# Well-formed fixtures written by numpy itself, to prove compatibility.
write("good-f32.npy", good(np.array([[1.5, -2.0, 0.25], [3.0, 4.0, -0.5]], dtype=np.float32)))
write("good-i64-scalar.npy", good(np.array(7, dtype=np.int64)))
write("good-bool.npy", good(np.array([True, False, True])))
b = io.BytesIO()
np.savez_compressed(b, first=np.arange(4, dtype=np.int32), **{"second/name:0": np.ones((2, 2), np.float64)})
write("good-compressed.npz", b.getvalue())
