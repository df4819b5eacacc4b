"""Runs a command and prints its output, then "exit=N" and "rss-ok" if its
peak resident memory stayed under LIMIT_MB (else "rss=N MB over LIMIT").
Usage: max_rss.py LIMIT_MB COMMAND...
"""
import resource
import subprocess
import sys

limit = int(sys.argv[1])
r = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(r.stdout.decode(errors="replace"))
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(f"exit={r.returncode}", "rss-ok" if rss < limit else f"rss={rss} MB over {limit}")
