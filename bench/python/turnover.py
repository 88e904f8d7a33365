"""What `check` says of a sympy workload that keeps nothing, over a long
run: each window of three snapshots, with two heapscope programs side by
side (--old, before; --new, after), and what each costs.

    PYTHONPATH=agent /usr/bin/python3 bench/python/turnover.py --old /tmp/old/heapscope --new /tmp/new/heapscope

The child (Debian's Python, with sympy) expands and differentiates a new
expression each round and multiplies a new Rational by a power of x,
keeping nothing, and takes a snapshot after --first rounds and then
after every --step rounds, --snapshots in all. For each window of three
consecutive snapshots, both programs run `check` on it, interleaved, the
order reversed every other window; the script prints each run's exit
status, its leaks (lines "leak: "), its findings that stopped growing
because the counts overruled identity ("took the place of"), its CPU
time and peak RSS (of the child process, from wait4), and each
snapshot's object count (from `summary`).
"""
import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import gc, sys
import sympy, heapscope
x, y = sympy.symbols("x y")
out, first, step, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n = 0
for k in range(count):
    for i in range(n, n + (first if k == 0 else step)):
        e = sympy.expand((x + i * y) ** 3)
        sympy.diff(e * sympy.sin(x), x)
        sympy.Rational(i, 7) * x ** (i % 5 + 1)
    n = i + 1
    gc.collect()
    heapscope.snapshot("%s/s%d.pysnap" % (out, k))
    print(n, flush=True)
'''


def timed(cmd):
    """Runs cmd; returns (exit status, stdout, CPU seconds, peak RSS in MiB)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True, help="the heapscope program before")
    ap.add_argument("--new", required=True, help="the heapscope program after")
    ap.add_argument("--first", type=int, default=100, help="rounds before the first snapshot")
    ap.add_argument("--step", type=int, default=200, help="rounds between snapshots")
    ap.add_argument("--snapshots", type=int, default=8)
    ap.add_argument("--python", default="/usr/bin/python3")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnover-") as tmp:
        rounds = subprocess.run([a.python, "-c", CHILD, tmp, str(a.first), str(a.step), str(a.snapshots)],
                                check=True, stdout=subprocess.PIPE, text=True).stdout.split()
        snaps = [os.path.join(tmp, "s%d.pysnap" % k) for k in range(a.snapshots)]
        for k, s in enumerate(snaps):
            head = subprocess.run([a.new, "summary", s], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
            print("s%d after %s rounds: %s" % (k, rounds[k], head.split(": ", 1)[1]))
        for k in range(a.snapshots - 2):
            window = snaps[k:k + 3]
            order = [("old", a.old), ("new", a.new)]
            if k % 2:
                order.reverse()
            for name, binary in order:
                rc, out, cpu, rss = timed([binary, "check"] + window)
                leaks = sum(1 for l in out.splitlines() if l.startswith("leak: "))
                turnover = out.count("took the place of")
                print("s%d-s%d %s: exit %d, %d leaks, %d turnover, %.2f s CPU, %.0f MiB" % (
                    k, k + 2, name, rc, leaks, turnover, cpu, rss))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
