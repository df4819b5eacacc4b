"""Writes a copy of a .kiln file with one change, in place (no byte moves):
  patch_bytes.py --spirv-generator IN OUT   the first SPIR-V module's
      generator word (header word 2) set to 0xffffffff: still valid SPIR-V
  patch_bytes.py --text IN OUT OLD NEW      the first OLD replaced by NEW
      (the same length)
  patch_bytes.py --spirv-opcode IN OUT FROM TO   in the first SPIR-V module
      that has them, every instruction of opcode FROM made opcode TO (the
      same operands: OpFAdd 129 -> OpFSub 131 leaves valid SPIR-V that
      computes wrong, a miscompiled kernel)
Fails if there is nothing to change."""
import struct
import sys


def patch_opcode(data, old, new):
    """A module is a FlatBuffers vector of 32-bit words (VulkanShader.spirv):
    its length in words precedes it."""
    at = data.find(bytes.fromhex("03022307"))
    while at >= 4:
        size = 4 * struct.unpack_from("<I", data, at - 4)[0]
        found = False
        word = at + 20  # past the five header words
        while word < at + size:
            head = struct.unpack_from("<I", data, word)[0]
            count, opcode = head >> 16, head & 0xFFFF
            if count == 0:
                break
            if opcode == old:
                struct.pack_into("<I", data, word, (count << 16) | new)
                found = True
            word += 4 * count
        if found:
            return True
        at = data.find(bytes.fromhex("03022307"), at + 4)
    return False


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
    elif mode == "--spirv-opcode":
        if not patch_opcode(data, int(sys.argv[4]), int(sys.argv[5])):
            sys.exit("no SPIR-V module in %s has opcode %s" % (src, sys.argv[4]))
    else:
        sys.exit("unknown mode " + mode)
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
