"""Checks `kiln run --self-test --json` output (stdin) against what a test
expects, from the numbers themselves rather than the tool's verdict:
  check_self_test.py pass   error <= tolerance, two runs identical
  check_self_test.py fail [K]  error > K x tolerance (default 1; a
                            broken kernel in an fp32 file is far off, not
                            borderline: K = 10)
  check_self_test.py flaky  the runs differ
Prints one line: the verdict and the figures, or exits 1 with why."""
import json
import math
import sys


def main():
    want = sys.argv[1]
    report = json.load(sys.stdin)  # must be valid JSON (no NaN literals)
    t = report["self_test"]
    err, tol = t["max_error"], t["tolerance"]
    err = math.inf if err is None else err
    if want == "pass":
        ok = err <= tol and t["deterministic"] and t["passed"]
    elif want == "fail":
        factor = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
        ok = err > factor * tol and not t["passed"]
    elif want == "flaky":
        ok = not t["deterministic"] and not t["passed"]
    else:
        sys.exit("unknown expectation " + want)
    verdict = "ok" if ok else "UNEXPECTED"
    print("%s %s on %s: error/tolerance %s, deterministic %s" %
          (want, verdict, report["target"],
           "inf" if math.isinf(err) else "%.3g" % (err / tol),
           t["deterministic"]))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
