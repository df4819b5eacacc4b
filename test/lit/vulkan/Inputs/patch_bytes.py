"""Writes a copy of a .kiln file with one change, in place (no byte moves):
  patch_bytes.py --spirv-generator IN OUT   the first SPIR-V module's
      generator word (header word 2) set to 0xffffffff: still valid SPIR-V
  patch_bytes.py --text IN OUT OLD NEW      the first OLD replaced by NEW
      (the same length)
Fails if there is nothing to change."""
import sys


def main():
    mode, src, dst = sys.argv[1:4]
    data = bytearray(open(src, "rb").read())
    if mode == "--spirv-generator":
        at = data.find(bytes.fromhex("03022307"))
        if at < 0:
            sys.exit("no SPIR-V module in " + src)
        data[at + 8:at + 12] = b"\xff\xff\xff\xff"
    elif mode == "--text":
        old, new = sys.argv[4].encode(), sys.argv[5].encode()
        if len(old) != len(new):
            sys.exit("OLD and NEW differ in length")
        at = data.find(old)
        if at < 0:
            sys.exit("'%s' is not in %s" % (sys.argv[4], src))
        data[at:at + len(old)] = new
    else:
        sys.exit("unknown mode " + mode)
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
