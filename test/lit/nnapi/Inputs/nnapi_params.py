"""Reads `kiln inspect FILE --json` on stdin and checks what AOSP's NNAPI
requires of the operations that keep their input's quantization: every
MEAN, RELU, RELU1 and RELU6 whose input is quantized must have the input's
scale and zero point on its output. Prints one line: how many such
operations there are, how many differ (each named on a line of its own),
and how many QUANTIZE/DEQUANTIZE operations are inside the NNAPI model.
usage: nnapi_params.py NAME < inspect.json"""
import json
import sys

nn = json.load(sys.stdin)["nnapi"]
ops, operands = nn["operations"], nn["operands"]
kept = ("MEAN", "RELU", "RELU1", "RELU6")
checked, differ = 0, []
for op in ops:
    if op["type"] not in kept:
        continue
    a, b = operands[op["inputs"][0]], operands[op["outputs"][0]]
    if not a["type"].startswith("TENSOR_QUANT8"):
        continue
    checked += 1
    pa = (a.get("scale", 0), a.get("zero_point", 0))
    pb = (b.get("scale", 0), b.get("zero_point", 0))
    if pa != pb:
        differ.append("  %s '%s': input %s, output %s" % (op["type"], op["name"], pa, pb))
conversions = sum(op["type"] in ("QUANTIZE", "DEQUANTIZE") for op in ops)
print("%s: %d quantized MEAN/RELU-family operations, %d with other output "
      "parameters; %d QUANTIZE/DEQUANTIZE inside"
      % (sys.argv[1], checked, len(differ), conversions))
for line in differ:
    print(line)
