#!/usr/bin/env python3
"""Checks that every .kir file under the given folders round-trips exactly.

For each file F (the malformed corpus aside): print(parse(F)) to A with
`kiln opt -O0 -o`, then print(parse(A)) to B; A and B (and their .weights-HASH
sidecars) must be byte-identical. Prints one line per file and a summary;
exits 1 if any file fails.
"""
import filecmp
import glob
import os
import subprocess
import sys
import tempfile


def main():
    kiln, roots = sys.argv[1], sys.argv[2:]
    files = []
    for root in roots:
        for dirpath, _, names in os.walk(root):
            if "malformed" in dirpath.split(os.sep):
                continue
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".kir")]
    files.sort()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, f in enumerate(files):
            a, b = os.path.join(tmp, f"{i}a.kir"), os.path.join(tmp, f"{i}b.kir")
            r1 = subprocess.run([kiln, "opt", "-O0", f, "-o", a], capture_output=True, text=True)
            r2 = r1.returncode == 0 and subprocess.run(
                [kiln, "opt", "-O0", a, "-o", b], capture_output=True, text=True)
            ok = r1.returncode == 0 and r2.returncode == 0
            if ok:
                ok = open(a).read().replace(f"{i}a.kir", "X") == open(b).read().replace(f"{i}b.kir", "X")
                # The sidecars are OUT.weights-HASH (named on the .kir's first line).
                sa, sb = glob.glob(glob.escape(a) + ".weights*"), glob.glob(glob.escape(b) + ".weights*")
                if sa or sb:
                    ok = ok and len(sa) == 1 and len(sb) == 1 and filecmp.cmp(sa[0], sb[0], shallow=False)
            print(("ok      " if ok else "FAILED  ") + os.path.relpath(f))
            if not ok:
                failed += 1
                print((r1.stderr if r1.returncode else "") + (r2.stderr if r2 and r2.returncode else ""))
    print(f"{len(files) - failed} passed, {failed} failed")
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
