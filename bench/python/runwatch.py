"""What run's watch of growth costs a program, measured with the
command a user runs: heapscope run, with the watch (the default) and
with --watch-growth=false, side by side.

    go build -o /tmp/heapscope ./cmd/heapscope
    /usr/bin/python3 bench/python/runwatch.py --heapscope /tmp/heapscope --n 30 --repeat 3

Each measurement is `heapscope run -o DIR --signal SIGUSR2 [--watch-growth=false]
-- python3 CHILD`: the child imports sympy and does the work of
bench/python/watch.py (expansions and derivatives kept in a list: a
leak) in six rounds of n items, and after each round sends itself
SIGUSR2 (run takes a fork snapshot) and waits until that snapshot is
done. With the watch, run watches the classes that grew in both
intervals between snapshots 1, 2 and 3, so rounds 4-6 run watched;
their CPU time ("work 4-6", the child's process time in those rounds
only) is the figure compared. Then `heapscope leaks` on snapshots 3, 4
and 5 says whether the first finding has allocation sites. The two
configurations are interleaved, their order reversed every other
round; it prints each run and the median ratios: of rounds 4-6 between
the two, of rounds 1-3 (nothing is watched yet in either: the noise),
and of rounds 4-6 over rounds 1-3 within each run (which takes out how
fast the machine was during that run).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watch import SYMPY_WORK  # noqa: E402  (the same work as watch.py's)

CHILD = r'''
import glob, json, os, signal, sys, time
''' + SYMPY_WORK + r'''
out, n = sys.argv[1], int(sys.argv[2])
cpu = []
for r in range(6):
    c0 = time.process_time()
    work(r * n, (r + 1) * n)
    cpu.append(time.process_time() - c0)
    os.kill(os.getpid(), signal.SIGUSR2)
    while len(glob.glob(os.path.join(out, "*-signal.pysnap"))) < r + 1:
        time.sleep(0.01)
    from heapscope import _fork, _watch
    _fork.wait_all()
print(json.dumps({"cpu": cpu, "watched": len(_watch.watched())}))
'''


def one(heapscope, watch, n):
    d = tempfile.mkdtemp(prefix="runwatch-")
    args = [heapscope, "run", "-o", d, "--signal", "SIGUSR2"]
    if not watch:
        args.append("--watch-growth=false")
    t0 = time.perf_counter()
    p = subprocess.run(args + ["--", sys.executable, "-c", CHILD, d, str(n)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("run failed: %s" % p.stderr)
    r = json.loads(p.stdout.strip().splitlines()[-1])
    snaps = sorted(glob.glob(os.path.join(d, "*-signal.pysnap")))
    q = subprocess.run([heapscope, "leaks", "--json"] + snaps[2:5], capture_output=True, text=True)
    rows = json.loads(q.stdout).get("rows") or [{}]
    sites = (rows[0].get("allocated") or {}).get("sites") or []
    site = ""
    if sites:
        fr = sites[0]["frames"]
        prog = sites[0].get("program", 0)
        f = fr[prog if prog >= 0 else 0]
        site = "%s (%s:%d)" % (f.get("function"), os.path.basename(f["file"]), f["line"])
    subprocess.run(["rm", "-rf", d])
    return {"watch": watch, "work 1-3": sum(r["cpu"][:3]), "work 4-6": sum(r["cpu"][3:]), "wall": wall,
            "watched": r["watched"], "first finding": rows[0].get("type", ""), "site": site}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--heapscope", required=True)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print("load average: %s" % open("/proc/loadavg").read().split()[:3])
    res = {True: [], False: []}
    for i in range(a.repeat):
        for w in ((False, True) if i % 2 == 0 else (True, False)):
            r = one(a.heapscope, w, a.n)
            res[w].append(r)
            print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}))
    ratio = [w["work 4-6"] / o["work 4-6"] for w, o in zip(res[True], res[False])]
    before = [w["work 1-3"] / o["work 1-3"] for w, o in zip(res[True], res[False])]
    print("work 4-6 (watched), watch / --watch-growth=false: median %.2fx (%s)" % (
        statistics.median(ratio), ", ".join("%.2f" % x for x in ratio)))
    print("work 1-3 (nothing watched yet), same ratio: median %.2fx (%s)" % (
        statistics.median(before), ", ".join("%.2f" % x for x in before)))
    # Each run against itself: rounds 4-6 over rounds 1-3, which takes
    # out how fast the machine was during that run.
    norm = {w: statistics.median(r["work 4-6"] / r["work 1-3"] for r in res[w]) for w in res}
    print("work 4-6 / work 1-3 within a run, median: watch %.3f, --watch-growth=false %.3f: %.2fx" % (
        norm[True], norm[False], norm[True] / norm[False]))
    print("load average: %s" % open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
