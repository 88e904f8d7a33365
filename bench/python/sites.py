"""What allocation sites cost: a sympy program's run time and its
snapshot's, without tracemalloc and with it at 1 and 25 frames, the
snapshot taken by this agent and by another (--old, an exported agent
directory: git archive main agent | tar -x -C /tmp/old), side by side.

    /usr/bin/python3 bench/python/sites.py --old /tmp/old/agent --n 60 --repeat 2

Each measurement is a child process (PYTHONTRACEMALLOC=N from its start,
as heapscope run --trace-alloc sets it) that imports sympy, does the
work (expansions and derivatives kept in a list), then takes one
in-process snapshot (heapscope.snapshot, fork=False); the runs are
interleaved, the order of the configurations reversed every other
round. It prints each run and the median ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r'''
import json, os, sys, time, gc
t0 = time.perf_counter()
import sympy
from sympy import symbols, expand, diff, sin, cos, Rational
t1 = time.perf_counter()
x, y, z = symbols("x y z")
keep = []
for i in range(int(sys.argv[2])):
    e = expand((x + Rational(i, 7) * y + z) ** (3 + i % 4))
    keep.append(e)
    keep.append(diff(e * sin(x) + cos(y * i), x))
t2 = time.perf_counter()
import heapscope
gc.collect()
t3 = time.perf_counter()
p = heapscope.snapshot(os.path.join(sys.argv[1], "s.pysnap"), fork=False)
t4 = time.perf_counter()
import tracemalloc
print(json.dumps({"import": t1 - t0, "work": t2 - t1, "snapshot": t4 - t3, "ok": p is not None,
                  "objects": len(gc.get_objects()), "tracing": tracemalloc.is_tracing()}))
'''


def run(agent, frames, n, tmp):
    env = dict(os.environ, PYTHONPATH=agent)
    env.pop("PYTHONTRACEMALLOC", None)
    if frames:
        env["PYTHONTRACEMALLOC"] = str(frames)
    out = subprocess.run([sys.executable, "-c", CHILD, tmp, str(n)], env=env, check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True, help="the agent directory to compare with (before)")
    ap.add_argument("--new", default=os.path.join(os.path.dirname(__file__), "..", "..", "agent"))
    ap.add_argument("--n", type=int, default=60, help="sympy work items")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    configs = [("untraced", a.new, 0), ("1 frame, before", a.old, 1), ("1 frame, after", a.new, 1),
               ("25 frames, before", a.old, 25), ("25 frames, after", a.new, 25)]
    res = {c[0]: [] for c in configs}
    print("load average %.1f %.1f %.1f" % os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.repeat):
            for name, agent, frames in (configs if r % 2 == 0 else configs[::-1]):
                m = run(os.path.abspath(agent), frames, a.n, tmp)
                res[name].append(m)
                print("%-18s import %6.2fs  work %6.2fs  snapshot %7.2fs  objects %d" % (
                    name, m["import"], m["work"], m["snapshot"], m["objects"]), flush=True)
    print("load average %.1f %.1f %.1f" % os.getloadavg())
    med = {k: {f: statistics.median(m[f] for m in v) for f in ("import", "work", "snapshot")} for k, v in res.items()}
    base = med["untraced"]
    print("\nmedians, and ratios to the untraced run")
    for name, _, _ in configs:
        m = med[name]
        print("%-18s snapshot %7.2fs (%5.1fx)  work %6.2fs (%5.1fx)  import %6.2fs (%5.1fx)" % (
            name, m["snapshot"], m["snapshot"] / base["snapshot"], m["work"], m["work"] / base["work"],
            m["import"], m["import"] / base["import"]))


if __name__ == "__main__":
    main()
