"""Writes a gray 8-bit PNG of HEIGHT x WIDTH pixels, all 128.
Usage: png_thin.py OUT HEIGHT WIDTH
"""
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


out, h, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = b"".join(b"\0" + b"\x80" * w for _ in range(h))
with open(out, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
