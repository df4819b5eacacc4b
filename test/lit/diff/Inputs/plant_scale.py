"""Plants a broken activation scale in a quantized .kir: multiplies the
scale of tensor NAME (its `NAME.scale` constant and every `q(scale=...)`
that carries the same value) by FACTOR, and writes OUT.kir with a copy of
the weights sidecar.

  plant_scale.py IN.kir NAME FACTOR OUT.kir
"""
import os
import re
import shutil
import sys

src, name, factor, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
text = open(src).read()
m = re.search(r'%"' + re.escape(name) + r'\.scale" = const f32\[\] dense\[([^\]]+)\]', text)
if not m:
    sys.exit(f"no scale constant for {name}")
old = m.group(1)
new = repr(float(old) * factor)
count_const = text.count(f"dense[{old}]")
count_type = text.count(f"q(scale={old},")
if count_const != 1:
    sys.exit(f"scale {old} is not unique ({count_const} constants)")
text = text.replace(f"dense[{old}]", f"dense[{new}]").replace(
    f"q(scale={old},", f"q(scale={new},")
open(out, "w").write(text)
# The sidecar is the file the first line names (`weights "NAME"`, in the
# .kir's folder); OUT.kir names the same one, so it goes beside OUT.kir.
side = re.match(r'weights "([^"]+)"\n', text)
if side:
    src_side = os.path.join(os.path.dirname(src), side.group(1))
    out_side = os.path.join(os.path.dirname(out), side.group(1))
    if os.path.abspath(src_side) != os.path.abspath(out_side):
        shutil.copyfile(src_side, out_side)
else:
    shutil.copyfile(src + ".weights", out + ".weights")
print(f"{name}: scale {old} -> {new} (1 constant, {count_type} types)")
