"""Prints the quantize report's size ratio from `kiln opt --json` and checks
it against a bound. usage: report-size.py REPORT.json MAX_RATIO"""
import json
import sys

q = json.load(open(sys.argv[1]))["quantize"]
r = q["size_ratio"]
print(f"{q['mode']}: constants {q['constant_bytes_before']} -> "
      f"{q['constant_bytes_after']} bytes, ratio {r:.3f}: "
      f"{'ok' if r <= float(sys.argv[2]) else 'TOO LARGE'}")
