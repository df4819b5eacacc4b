"""Ratio of two `kiln convert --json` reports' file sizes, checked against a
bound. usage: file-ratio.py QUANTIZED.json FP32.json MAX_RATIO"""
import json
import sys

q, f = (json.load(open(p))["file_bytes"] for p in sys.argv[1:3])
r = q / f
print(f"file {f} -> {q} bytes, ratio {r:.3f}: "
      f"{'ok' if r <= float(sys.argv[3]) else 'TOO LARGE'}")
