"""Adds DELTA to the first element of an int32 bias constant in a QDQ .kir:
    shift_bias.py IN.kir NAME DELTA OUT.kir
so one channel of that layer's output moves by DELTA * s_in * s_w, and the
layers after it see the change (a planted error at one layer)."""
import re
import sys

src, name, delta, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(src).read()
pattern = re.compile(r"(%" + re.escape(name) + r" = const i32\[[0-9,]+\] .*? dense\[)(-?[0-9]+)")
text, count = pattern.subn(lambda m: m.group(1) + str(int(m.group(2)) + delta), text, 1)
if count != 1:
    sys.exit(f"{src}: no int32 constant %{name}")
open(out, "w").write(text)
print(f"%{name}[0] += {delta}")
