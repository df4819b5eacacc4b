"""Flips one bit at a time at N seeded random places anywhere in a .kiln
file and runs `kiln verify` on each copy; prints "N flips, F found" and the
places of any flip that verify accepted.
Usage: random_flips.py KILN IN SCRATCH N
"""
import random
import subprocess
import sys

kiln, source, scratch, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(source, "rb").read()
rng = random.Random(30)
found = 0
for _ in range(count):
    at = rng.randrange(len(data))
    flipped = bytearray(data)
    flipped[at] ^= 1 << rng.randrange(8)
    open(scratch, "wb").write(flipped)
    result = subprocess.run([kiln, "verify", scratch], capture_output=True)
    if result.returncode == 1:
        found += 1
    else:
        print(f"flip at byte {at}: verify exited {result.returncode}")
print(f"{count} flips, {found} found")
