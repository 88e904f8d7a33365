"""What allocation sites cost when only the classes that grew are
watched (heapscope.watch, as the leak check does), side by side with no
sites and with tracemalloc at 1 and 8 frames.

    /usr/bin/python3 bench/python/watch.py --n 40 --repeat 3

Each measurement is a child process that imports sympy and does the
work of bench/python/sites.py (expansions and derivatives kept in a
list: a leak) in three rounds of n items: A, B and C. After A and after
B it counts the objects per class (the leak check's counts); the
"watch" child then watches the classes that grew between them, with 16
frames, as LeakCheck does. Round C is timed ("work"), then one
in-process snapshot (heapscope.snapshot, fork=False, "snapshot").
tracemalloc children (PYTHONTRACEMALLOC=N) trace from their start, as
heapscope run --trace-alloc=N does. The configurations are
interleaved, their order reversed every other round. It prints each run
and the median ratios to the child without sites; then the worst case,
a loop that only makes instances of one watched class.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

# The sympy work of the children (runwatch.py's too): expansions and
# derivatives kept in a list, items lo to hi.
SYMPY_WORK = r'''
import sympy
from sympy import symbols, expand, diff, sin, cos, Rational
x, y, z = symbols("x y z")
keep = []
def work(lo, hi):
    for i in range(lo, hi):
        e = expand((x + Rational(i, 7) * y + z) ** (3 + i % 4))
        keep.append(e)
        keep.append(diff(e * sin(x) + cos(y * i), x))
'''

CHILD = r'''
import json, os, sys, time, gc
import heapscope
from heapscope import _census, _watch
''' + SYMPY_WORK + r'''
n = int(sys.argv[2])
t0 = time.perf_counter()
work(0, n)
_census.counts(True)
work(n, 2 * n)
_census.counts(True)
t1 = time.perf_counter()
watched = []
if sys.argv[3] == "watch":
    (a, ta), (b, tb) = _census.COUNTS[-2:]
    grew = [t for tid, t in tb.items() if b.get(tid, 0) > a.get(tid, 0)]
    watched = [t for t in grew if _watch.refusal(t) is None]
    heapscope.watch(*watched, frames=16)
    grown = len(grew)
else:
    grown = 0
del _census.COUNTS[:]
t2 = time.perf_counter()
work(2 * n, 3 * n)
t3 = time.perf_counter()
gc.collect()
t4 = time.perf_counter()
p = heapscope.snapshot(os.path.join(sys.argv[1], "s.pysnap"), fork=False)
t5 = time.perf_counter()
print(json.dumps({"before": t1 - t0, "work": t3 - t2, "snapshot": t5 - t4, "ok": p is not None,
                  "grown": grown, "watched": len(watched), "noted": len(_watch._state.pairs) // 2,
                  "objects": len(gc.get_objects())}))
'''


# The worst case: a loop that does nothing but make instances of the
# watched class, 200,000 at a time, without and with the watch, in turn.
MICRO = r'''
import json, sys, time
import heapscope
class Item:
    def __init__(self, i):
        self.i = i
def loop(n):
    keep = None
    for i in range(n):
        keep = Item(i)
    return keep
loop(50000)
out = {"off": [], "on": []}
for r in range(int(sys.argv[1])):
    for mode in ("off", "on") if r % 2 == 0 else ("on", "off"):
        if mode == "on":
            heapscope.watch(Item, frames=16)
        t = time.perf_counter()
        loop(200000)
        out[mode].append((time.perf_counter() - t) / 200000)
        heapscope.unwatch()
print(json.dumps(out))
'''


def micro(agent, repeat):
    env = dict(os.environ, PYTHONPATH=agent)
    env.pop("PYTHONTRACEMALLOC", None)
    out = json.loads(subprocess.run([sys.executable, "-c", MICRO, str(repeat)], env=env, check=True,
                                    stdout=subprocess.PIPE).stdout)
    off, on = statistics.median(out["off"]), statistics.median(out["on"])
    print("\nthe worst case, a loop that only makes instances of the watched class (median of %d): "
          "%.2f us per instance without the watch, %.2f us with it (16 frames): %.2f us more, %.1fx"
          % (repeat, off * 1e6, on * 1e6, (on - off) * 1e6, on / off))


def run(agent, mode, frames, n, tmp):
    env = dict(os.environ, PYTHONPATH=agent)
    env.pop("PYTHONTRACEMALLOC", None)
    if frames:
        env["PYTHONTRACEMALLOC"] = str(frames)
    out = subprocess.run([sys.executable, "-c", CHILD, tmp, str(n), mode], env=env, check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--agent", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agent"))
    ap.add_argument("--n", type=int, default=40, help="sympy work items per round")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    configs = [("no sites", "plain", 0), ("watch, 16 frames", "watch", 0),
               ("tracemalloc, 1 frame", "plain", 1), ("tracemalloc, 8 frames", "plain", 8)]
    res = {c[0]: [] for c in configs}
    print("load average %.1f %.1f %.1f" % os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.repeat):
            for name, mode, frames in (configs if r % 2 == 0 else configs[::-1]):
                m = run(os.path.abspath(a.agent), mode, frames, a.n, tmp)
                res[name].append(m)
                print("%-22s work %6.2fs  snapshot %6.2fs  (rounds A, B and counts %6.2fs; %d classes grew, "
                      "%d watched, %d allocations noted; %d objects)" % (
                          name, m["work"], m["snapshot"], m["before"], m["grown"], m["watched"], m["noted"],
                          m["objects"]), flush=True)
    print("load average %.1f %.1f %.1f" % os.getloadavg())
    med = {k: {f: statistics.median(m[f] for m in v) for f in ("work", "snapshot")} for k, v in res.items()}
    base = med["no sites"]
    print("\nmedians, and ratios to the child without sites")
    print("| | work (round C) | ratio | snapshot | ratio |")
    print("|---|---|---|---|---|")
    for name, _, _ in configs:
        m = med[name]
        print("| %s | %.2f s | %.2fx | %.2f s | %.2fx |" % (name, m["work"], m["work"] / base["work"],
                                                       m["snapshot"], m["snapshot"] / base["snapshot"]))
    micro(os.path.abspath(a.agent), 2 * a.repeat + 1)


if __name__ == "__main__":
    main()
