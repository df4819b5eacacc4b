#!/usr/bin/env python3
"""Writes the malformed TorchScript (.pt) corpus used by
test/unit/support/ZipCheckTest.cpp and test/lit/torchscript/*.test.

A .pt file is a zip archive that libtorch parses (and whose code it runs), so
kiln checks the archive first (lib/Support/ZipCheck.cpp). Each file here breaks
one rule of that check. good.pt is a real torch.jit.save of a tiny traced
module; the corrupt variants of it keep PyTorch's layout (local headers with
zero sizes, data descriptors, a ZIP64 end record), the others are small
archives written by make_zip() below so that every field is under control.

Run with Debian's /usr/bin/python3 (python3-torch); the outputs are committed.
The output is deterministic for a given torch and zlib.
"""
import io
import os
import struct
import sys
import zlib

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

# --- good.pt: a real TorchScript file --------------------------------------
# The module is compiled from a string with a fixed file name, so the debug
# info torch stores does not depend on where this script lives.
import torch

MODULE = '''
import torch
class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
    def forward(self, x):
        return torch.relu(self.fc(x))
'''
torch.manual_seed(0)
scope = {"__name__": "kiln_fixture"}
exec(compile(MODULE, "kiln_fixture.py", "exec"), scope)
traced = torch.jit.trace(scope["Tiny"]().eval(), torch.zeros(1, 3))
buf = io.BytesIO()
torch.jit.save(traced, buf)  # entries are named archive/...
GOOD = buf.getvalue()


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


# --- reading and patching an existing archive --------------------------------
def u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def parse(data):
    """Offsets of the records of an archive without ZIP64 entries."""
    eocd = data.rindex(b"PK\x05\x06")
    count, cd_size, cd_off = u16(data, eocd + 10), u32(data, eocd + 12), u32(data, eocd + 16)
    entries = {}
    pos = cd_off
    for _ in range(count):
        assert data[pos:pos + 4] == b"PK\x01\x02"
        nlen, elen, clen = u16(data, pos + 28), u16(data, pos + 30), u16(data, pos + 32)
        name = data[pos + 46:pos + 46 + nlen].decode()
        local = u32(data, pos + 42)
        lnlen, lelen = u16(data, local + 26), u16(data, local + 28)
        data_start = local + 30 + lnlen + lelen
        entries[name] = dict(central=pos, local=local, data=data_start,
                             data_end=data_start + u32(data, pos + 20),
                             method=u16(data, pos + 10))
        pos += 46 + nlen + elen + clen
    z64 = data.rfind(b"PK\x06\x06")
    return dict(eocd=eocd, cd_off=cd_off, entries=entries, zip64=z64,
                locator=data.rfind(b"PK\x06\x07"))


def patch(data, offset, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, value)
    return bytes(b)


G = parse(GOOD)
assert G["zip64"] > 0 and G["locator"] > 0, "torch no longer writes a ZIP64 end record?"
CODE = "archive/code/__torch__/torch/nn/modules/linear.py"  # deflated
WEIGHTS = "archive/data/0"          # a stored entry (6 floats)
assert G["entries"][CODE]["method"] == 8 and G["entries"][WEIGHTS]["method"] == 0


def descriptor(data, name):
    """Offset of the CRC field of the entry's data descriptor (after PK\\7\\8)."""
    end = G["entries"][name]["data_end"]
    assert data[end:end + 4] == b"PK\x07\x08"
    return end + 4


def resize(data, name, delta):
    """Changes an entry's declared uncompressed size in the central directory
    and the data descriptor alike, so only the data itself can tell."""
    e = G["entries"][name]
    size = u32(data, e["central"] + 24) + delta
    data = patch(data, e["central"] + 24, "<I", size)
    return patch(data, descriptor(data, name) + 8, "<I", size)


write("good.pt", GOOD)
write("empty.pt", b"")
write("not-a-zip.pt", b"this is a text file with a .pt extension, not a zip archive\n" * 4)
write("truncated-half.pt", GOOD[:len(GOOD) // 2])
write("truncated-central-directory.pt", GOOD[:G["cd_off"] + 100])
write("size-larger.pt", resize(GOOD, CODE, +100))
write("size-smaller.pt", resize(GOOD, CODE, -100))
# One byte of the stored weights flipped: sizes agree, the CRC does not.
b = bytearray(GOOD)
b[G["entries"][WEIGHTS]["data"] + 5] ^= 0x40
write("crc-mismatch.pt", bytes(b))
# The data descriptor after the weights disagrees with the central directory.
write("descriptor-mismatch.pt",
      patch(GOOD, descriptor(GOOD, WEIGHTS), "<I", u32(GOOD, descriptor(GOOD, WEIGHTS)) ^ 1))
# ZIP64 lies. The end record holds real values in this file, so the ZIP64
# record must agree with them; saturated ones defer to the ZIP64 record.
z64, eocd = G["zip64"], G["eocd"]
write("zip64-disagrees.pt", patch(GOOD, z64 + 48, "<Q", 7))  # central directory offset
b = patch(GOOD, eocd + 8, "<H", 0xFFFF)
b = patch(b, eocd + 10, "<H", 0xFFFF)
b = patch(b, z64 + 24, "<Q", 1 << 40)
write("zip64-entry-count.pt", patch(b, z64 + 32, "<Q", 1 << 40))
write("zip64-locator-outside.pt", patch(GOOD, G["locator"] + 8, "<Q", 1 << 62))


# --- small archives written field by field ---------------------------------
def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def make_zip(entries, comment=b""):
    """entries: dicts with name (bytes), data (bytes), and optional method,
    flags, stored (the bytes written as the entry's data), local/central
    overrides of crc/csize/usize/name/method/flags, central_extra,
    offset (where the central directory says the local header is) and write
    (False: no local header of its own)."""
    body = b""
    central = b""
    for e in entries:
        method = e.get("method", 0)
        stored = e.get("stored", deflate(e["data"]) if method == 8 else e["data"])
        f = dict(name=e["name"], method=method, flags=e.get("flags", 0),
                 crc=zlib.crc32(e["data"]), csize=len(stored), usize=len(e["data"]))
        lf = dict(f, **e.get("local", {}))
        cf = dict(f, **e.get("central", {}))
        offset = e.get("offset", len(body))
        if e.get("write", True):
            body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, lf["flags"], lf["method"], 0, 0x21,
                                lf["crc"], lf["csize"], lf["usize"], len(lf["name"]), 0) + lf["name"] + stored
        extra = e.get("central_extra", b"")
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, cf["flags"], cf["method"],
                               0, 0x21, cf["crc"], cf["csize"], cf["usize"], len(cf["name"]),
                               len(extra), 0, 0, 0, 0, offset) + cf["name"] + extra
    n = len(entries)
    return body + central + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central),
                                        len(body), len(comment)) + comment


PKL = b"\x80\x02}q\x00."  # an empty pickled dict


def one(name, **kw):
    return make_zip([dict(name=name, data=PKL, **kw)])


write("traversal-dotdot.pt", one(b"archive/../../x"))
write("traversal-absolute.pt", one(b"/etc/x"))
write("traversal-backslash.pt", one(b"archive\\..\\x"))
write("nul-in-name.pt", one(b"archive/a\0b"))
write("empty-name.pt", one(b""))
write("duplicate-names.pt", make_zip([dict(name=b"archive/data.pkl", data=PKL),
                                 dict(name=b"archive/data.pkl", data=b"\x80\x02N.")]))
write("local-header-size.pt", one(b"archive/data.pkl", local=dict(usize=999)))
write("local-header-name.pt", one(b"archive/data.pkl", local=dict(name=b"archive/evil.pkl")))
write("stored-size-mismatch.pt", one(b"archive/data.pkl", central=dict(usize=100)))
# Compressed data longer than what lies before the central directory.
write("compressed-past-end.pt", one(b"archive/data.pkl", method=8,
                                    local=dict(csize=5000), central=dict(csize=5000)))
write("corrupt-deflate.pt", one(b"archive/data.pkl", method=8, stored=b"\xff" * 16,
                                local=dict(csize=16), central=dict(csize=16)))
write("encrypted.pt", one(b"archive/data.pkl", flags=1))
write("bzip2.pt", one(b"archive/data.pkl", method=12, stored=b"BZh9" + b"\0" * 8))
write("empty-archive.pt", make_zip([]))
# Zip-bomb declarations: one entry claiming 1 TiB (ZIP64 extra field), and six
# entries of 3 GiB each (18 GiB in all, above the 16 GiB total).
write("bomb-entry.pt", one(b"archive/data/0", method=8,
                           central=dict(usize=0xFFFFFFFF),
                           central_extra=struct.pack("<HHQ", 1, 8, 1 << 40)))
write("bomb-total.pt", make_zip([dict(name=b"archive/data/%d" % i, data=b"\0", method=8,
                                 central=dict(usize=3 << 30), local=dict(usize=3 << 30))
                            for i in range(6)]))
# ZIP64 size markers without the ZIP64 extra field that should hold them.
write("zip64-missing-extra.pt", one(b"archive/data.pkl", central=dict(usize=0xFFFFFFFF)))
# Overlapping entries (how non-recursive zip bombs reuse one stream): the
# stored data of 'outer' is itself a complete local header and data for
# 'inner', and the central directory lists both.
inner = make_zip([dict(name=b"archive/inner", data=PKL)])
inner_local = inner[:30 + len(b"archive/inner") + len(PKL)]
write("overlapping.pt", make_zip([dict(name=b"archive/outer", data=inner_local),
                             dict(name=b"archive/inner", data=PKL, write=False,
                                  offset=30 + len(b"archive/outer"))]))
# A valid small archive written by this script, to show make_zip() itself is sound.
write("good-small.pt", make_zip([dict(name=b"archive/data.pkl", data=PKL),
                            dict(name=b"archive/code.py", data=b"def f(x):\n    return x\n" * 20,
                                 method=8)]))


# Valid archives written by Python's zipfile in its two ZIP64 styles: with
# ZIP64 extra fields in the local headers, and streamed to a pipe-like file
# (no seeking), where sizes follow the data in 8-byte data descriptors.
class Unseekable(io.RawIOBase):
    def __init__(self):
        self.b = bytearray()

    def writable(self):
        return True

    def write(self, data):
        self.b += data
        return len(data)


def python_zip(f):
    import zipfile
    with zipfile.ZipFile(f, "w") as z:
        for i, (name, data, method) in enumerate([("archive/data.pkl", PKL, zipfile.ZIP_STORED),
                                                  ("archive/code.py", b"x = 1\n" * 50, zipfile.ZIP_DEFLATED)]):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = method
            with z.open(info, "w", force_zip64=True) as w:
                w.write(data)
    return f


write("good-zip64.pt", python_zip(io.BytesIO()).getvalue())
write("good-streamed.pt", bytes(python_zip(Unseekable()).b))
