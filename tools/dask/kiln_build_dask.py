#!/usr/bin/python3
"""Runs `kiln build` on a Dask cluster: the manifest's job graph (from
`kiln build --plan`) becomes Dask tasks, each one `kiln build --only JOB`,
with the plan's dependencies; the final report step then runs here.

    kiln_build_dask.py kiln.toml -o OUT [--scheduler tcp://HOST:8786]
                       [--local-workers N] [--kiln PATH]

Every worker must see OUT and the manifest's files at the same paths (a
shared file system) and have the same kiln. Without --scheduler a local
cluster of N worker processes (default 2) is started. The artifacts are
byte-identical to those of `kiln build` on one machine, and the exit code
is the report step's (0, 1 for a failed job, 3 for a failed gate).
docs/build.md shows the GitHub Actions and Slurm equivalents.
"""
import argparse
import json
import os
import subprocess
import sys


def run_job(command, *deps):
    """Runs one `kiln build --only JOB`; returns its exit code and output.
    deps are the dependencies' results: Dask passes them once they are
    done, which is all they are here for."""
    r = subprocess.run(command, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return {"command": command, "returncode": r.returncode,
            "output": r.stdout}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--scheduler", help="a running Dask scheduler's address")
    ap.add_argument("--local-workers", type=int, default=2)
    ap.add_argument("--kiln", default="kiln",
                    help="the kiln executable (default: kiln on PATH)")
    args = ap.parse_args()

    plan = subprocess.run([args.kiln, "build", args.manifest, "-o",
                           args.output, "--plan"], stdout=subprocess.PIPE,
                          text=True)
    if plan.returncode != 0:
        return plan.returncode
    plan = json.loads(plan.stdout)

    from dask.distributed import Client, LocalCluster
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.local_workers,
                               threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    futures = {}
    for job in plan["jobs"]:  # dependencies come first in the plan
        deps = [futures[d] for d in job["deps"]]
        futures[job["id"]] = client.submit(run_job, job["command"], *deps,
                                           key="kiln-" + job["id"],
                                           pure=False)
    failed = 0
    for job in plan["jobs"]:
        r = futures[job["id"]].result()
        if r["returncode"] != 0:
            failed += 1
            sys.stderr.write("kiln_build_dask: %s failed (exit %d):\n%s" %
                             (job["id"], r["returncode"], r["output"]))
    client.close()
    final = subprocess.run(plan["final"]["command"])
    if failed and final.returncode == 0:
        return 1
    return final.returncode


if __name__ == "__main__":
    sys.exit(main())
