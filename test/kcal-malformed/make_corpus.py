"""Writes the malformed .kcal corpus (test/kcal-malformed/*.kcal) from a
valid file: each one is what a hostile or broken writer could produce, with
a correct checksum, so that the reader's structural checks (not the
checksum) must refuse it.

    make_corpus.py VALID.kcal OUT_DIR [--small]

--small leaves out the 1 MB amplification probe (the checked-in seeds of the
kcal fuzz target; test/lit/quant/kcal-malformed.test makes all of them).

The layout is passes/quant/StatsFile.cpp's (version 3). The checksum is
xxHash64 (seed 0), written out here so that no module outside Debian's
python3 is needed.
"""
import os
import struct
import sys

M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F,
                      0x165667B19E3779F9, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def rnd(acc, lane):
    acc = (acc + lane * P2) & M64
    return (rotl(acc, 31) * P1) & M64


def merge(acc, val):
    acc ^= rnd(0, val)
    return (acc * P1 + P4) & M64


def xxh64(data):
    n, i = len(data), 0
    if n >= 32:
        v = [(P1 + P2) & M64, P2, 0, (-P1) & M64]
        while i + 32 <= n:
            for k in range(4):
                v[k] = rnd(v[k], struct.unpack_from("<Q", data, i + 8 * k)[0])
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M64
        for k in range(4):
            h = merge(h, v[k])
    else:
        h = P5
    h = (h + n) & M64
    while i + 8 <= n:
        h ^= rnd(0, struct.unpack_from("<Q", data, i)[0])
        h = (rotl(h, 27) * P1 + P4) & M64
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * P1) & M64
        h = (rotl(h, 23) * P2 + P3) & M64
        i += 4
    while i < n:
        h ^= (data[i] * P5) & M64
        h = (rotl(h, 11) * P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    return h ^ (h >> 32)


def seal(body):
    return body + struct.pack("<Q", xxh64(body))


class Kcal:
    """A parsed version-3 file: header fields and values as lists."""

    def __init__(self, data):
        body, (check,) = data[:-8], struct.unpack("<Q", data[-8:])
        assert xxh64(body) == check, "the checksum does not match xxHash64"
        p = 0

        def take(fmt):
            nonlocal p
            v = struct.unpack_from("<" + fmt, body, p)
            p += struct.calcsize("<" + fmt)
            return v

        self.magic = body[:4]
        p = 4
        self.version, self.graph, self.bins = take("IQI")
        (elen,) = take("I")
        self.engine = body[p:p + elen]
        p += elen
        self.shard_count, self.dataset, self.samples = take("IQQ")
        (ns,) = take("I")
        self.shards = list(take("I" * ns)) if ns else []
        (nv,) = take("I")
        self.values = []
        for _ in range(nv):
            ordinal, nlen = take("II")
            name = body[p:p + nlen]
            p += nlen
            mn, mx, fin, nonfin, exp, used = take("ffQQiI")
            entries = [take("IQ") for _ in range(used)]
            self.values.append(dict(ordinal=ordinal, name=name, min=mn, max=mx,
                                    finite=fin, nonfinite=nonfin, exp=exp,
                                    entries=entries))
        assert p == len(body)

    def pack(self, values=None, bins=None, nvalues=None):
        out = bytearray(self.magic)
        out += struct.pack("<IQI", self.version, self.graph,
                           self.bins if bins is None else bins)
        out += struct.pack("<I", len(self.engine)) + self.engine
        out += struct.pack("<IQQ", self.shard_count, self.dataset, self.samples)
        out += struct.pack("<I", len(self.shards))
        out += b"".join(struct.pack("<I", s) for s in self.shards)
        values = self.values if values is None else values
        out += struct.pack("<I", len(values) if nvalues is None else nvalues)
        for v in values:
            out += struct.pack("<II", v["ordinal"], len(v["name"])) + v["name"]
            out += struct.pack("<ffQQiI", v["min"], v["max"], v["finite"],
                               v["nonfinite"], v["exp"], len(v["entries"]))
            for b, c in v["entries"]:
                out += struct.pack("<IQ", b, c)
        return seal(bytes(out))


def main():
    valid, out = sys.argv[1], sys.argv[2]
    small = "--small" in sys.argv  # the checked-in seeds: no 1 MB probe
    os.makedirs(out, exist_ok=True)
    with open(valid, "rb") as f:
        k = Kcal(f.read())
    v0 = k.values[0]

    def write(name, data):
        with open(os.path.join(out, name + ".kcal"), "wb") as f:
            f.write(data)

    def changed(**fields):
        vs = [dict(v) for v in k.values]
        vs[0].update(fields)
        return k.pack(values=vs)

    # The amplification probe: 20,000 tensors at 65,536 bins, one value each.
    if not small:
        amp = []
        for i in range(20000):
            x = float(i % 97) - 48.0
            amp.append(dict(ordinal=i, name=b"t%d" % i, min=x, max=x, finite=1,
                            nonfinite=0, exp=6, entries=[(int(x * 512) + 32768, 1)]))
        write("amplify_20000_tensors", k.pack(values=amp, bins=65536))
    # Lying counts and ranges.
    write("bin_count_not_a_power_of_two", k.pack(bins=1000))
    write("bin_count_above_limit", k.pack(bins=1 << 20))
    write("entries_out_of_order", changed(entries=list(reversed(v0["entries"]))))
    write("entry_past_bin_count", changed(entries=v0["entries"][:-1] + [(k.bins, 1)]))
    write("counts_do_not_sum", changed(finite=v0["finite"] + 7))
    write("range_huge", changed(min=-3.4e38, max=3.4e38, exp=128))
    write("range_denormal", changed(min=1e-39, max=1e-39, exp=-126,
                                    entries=[(34, v0["finite"])]))
    write("range_zero_with_spread_bins", changed(min=0.0, max=0.0))
    write("min_nan", changed(min=float("nan")))
    write("max_inf", changed(max=float("inf")))
    write("min_above_max", changed(min=v0["max"] + 1, max=v0["min"]))
    write("exponent_out_of_range", changed(exp=4000))
    write("range_not_holding_max", changed(exp=v0["exp"] - 3))
    write("non_finite_observed", changed(nonfinite=12))
    write("claims_4m_tensors", k.pack(nvalues=1 << 22))
    write("claims_more_entries_than_bins",
          changed(entries=[(i, 1) for i in range(k.bins + 1)], finite=k.bins + 1))
    with open(valid, "rb") as f:
        whole = f.read()
    write("truncated_half", whole[: len(whole) // 2])
    write("checksum_flipped", whole[:-1] + bytes([whole[-1] ^ 1]))


if __name__ == "__main__":
    main()
