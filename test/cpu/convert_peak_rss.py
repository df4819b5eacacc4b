"""Runs a command and checks its peak resident memory against a bound given
as a multiple of a weight size: convert_peak_rss.py WEIGHT_BYTES MAX_RATIO
CMD... Prints "convert peak RSS: R x the weights" and "ok" or exits 1.
The peak is the child's ru_maxrss (KiB on Linux), process baseline included
(the kiln binary with its libraries is about 25 MB)."""
import resource
import subprocess
import sys


def main():
    weights, bound, cmd = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    if rc != 0:
        sys.exit("command failed with exit %d: %s" % (rc, " ".join(cmd)))
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    ratio = peak / weights
    print("convert peak RSS: %.0f MB, %.3f x the weights (bound %.2f)"
          % (peak / 1e6, ratio, bound))
    if ratio > bound:
        sys.exit("convert peak RSS above %.2f x the weights" % bound)
    print("convert memory: ok")


main()
