"""Benchmarks of attaching to a running Python process and of allocation
tracing.

    python3 bench/attach/bench.py latency --heapscope BIN --python PY --objects N [--repeat R]
    python3 bench/attach/bench.py sympy --heapscope BIN [--repeat R]
    python3 bench/attach/bench.py slowdown [--repeat R] [--frames 1,25]
    python3 bench/attach/bench.py node [--repeat R]
    python3 bench/attach/bench.py all --heapscope BIN [--repeat R]

latency  starts a target (this file, `target N`) that builds about N
         objects and then runs small units of work in its main thread,
         timing the gap between consecutive units; runs `heapscope
         snapshot --python PID` R times (full, then --census) and reports,
         per capture: the command's wall time (start to file written), the
         agent's own capture time (META capture_seconds), the longest gap
         between two units of work the program saw during the command
         (its pause: gdb's stop, then the capture, which runs in its main
         thread, plus one unit of work), and the longest gap over a
         second just before, without a capture (one unit of work).
sympy    the same against a real workload on Debian's /usr/bin/python3:
         sympy expanding and factoring polynomials, keeping the results.
slowdown the same fixed sympy work (Debian's python3) with no tracing,
         with PYTHONTRACEMALLOC=1 and with PYTHONTRACEMALLOC=25 (what
         `heapscope run --trace-alloc[=N]` sets), runs interleaved, and
         the wall time of each.
node     TypeScript's compiler checking typescript.d.ts, with and without
         node --track-heap-objects (what `run --trace-alloc` sets for
         Node), and each with --no-opt, interleaved.
all      every one of the above in one run, one after the other: latency
         on a small heap (--small objects) and a large one (--objects),
         the small one again with the target tracing (PYTHONTRACEMALLOC=1,
         the capture then also writes allocation sites), sympy, slowdown
         and node.
"""

import argparse
import json
import os
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import time

SYMPY_PY = "/usr/bin/python3"
TSC = "/work/subjects/node_modules/typescript/lib"

# The sympy workload: expand and factor polynomials of growing degree,
# keeping every result (a cache that grows, as a long job's would).
SYMPY_WORK = """
import sympy
x, y, z = sympy.symbols('x y z')
kept = []
def unit(i):
    e = sympy.expand((x + 2*y - z + i) ** (3 + i % 5))
    kept.append(e)
    kept.append(sympy.factor(e))
"""


def target(n):
    """The program attached to: n objects, then units of work forever;
    stdin "gap" prints the longest gap between two units since the last
    "gap", in ms."""
    if n < 0:
        exec(SYMPY_WORK, globals())
        for i in range(-n):
            unit(i)  # noqa: F821 (defined by SYMPY_WORK)
        work = unit  # noqa: F821
    else:
        class Rec:
            def __init__(self, i):
                self.i = i
                self.name = "rec-%d" % i
                self.tags = [i, str(i)]
        heap = [Rec(i) for i in range(n // 6)]  # about 6 objects each
        churn = []

        def work(i):
            churn.append({"i": i, "s": "x%d" % i})
            if len(churn) > 1000:
                del churn[:]
    print("ready", flush=True)
    last = time.perf_counter()
    worst = 0.0
    i = 0
    while True:
        work(i)
        i += 1
        now = time.perf_counter()
        worst = max(worst, now - last)
        last = now
        if select.select([sys.stdin], [], [], 0)[0]:
            line = sys.stdin.readline()
            if not line:
                return
            print("%.1f" % (worst * 1000), flush=True)
            worst = 0.0
            last = time.perf_counter()


def meta(path):
    """The META section of a .pysnap file."""
    with open(path, "rb") as f:
        f.read(16)
        while True:
            h = f.read(16)
            if len(h) < 16:
                return {}
            kind, _, length = struct.unpack("<IIQ", h)
            if kind == 1:
                return json.loads(f.read(length))
            f.seek(length, 1)


def start(py, arg, env=None):
    p = subprocess.Popen([py, os.path.abspath(__file__), "target", str(arg)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    if p.stdout.readline().strip() != "ready":
        sys.exit("the target did not start")
    return p


def gap(p):
    p.stdin.write("gap\n")
    p.stdin.flush()
    return float(p.stdout.readline())


def latency(args, py, n, label, trace=0):
    env = dict(os.environ)
    env.pop("PYTHONTRACEMALLOC", None)
    if trace:
        env["PYTHONTRACEMALLOC"] = str(trace)
        label += ", PYTHONTRACEMALLOC=%d" % trace
    p = start(py, n, env)
    out = tempfile.mkdtemp(prefix="heapscope-bench-")
    rows = []
    try:
        time.sleep(1)
        gap(p)
        for flags in ([], ["--census"]):
            for r in range(args.repeat):
                # The longest gap between two units of work over a second
                # with no capture: what the program's own work takes.
                time.sleep(1)
                before = gap(p)
                path = os.path.join(out, "s.pysnap")
                t0 = time.perf_counter()
                subprocess.run([args.heapscope, "snapshot", "--python", str(p.pid), "-o", path] + flags,
                               check=True, stdout=subprocess.DEVNULL)
                wall = time.perf_counter() - t0
                m = meta(path)
                g = gap(p)
                rows.append((label, "census" if flags else "full", m.get("objects"), wall, m.get("capture_seconds"),
                             g / 1000, before / 1000))
                os.unlink(path)
    finally:
        p.kill()
        os.rmdir(out)
    print("| program | snapshot | objects | command (start to file) | capture in the process "
          "| longest gap between units during the command | without a capture |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, kind, objs, wall, cap, g, before in rows:
        print("| %s | %s | %s | %.2f s | %.2f s | %.2f s | %.2f s |" % (label, kind, "{:,}".format(objs or 0), wall, cap or 0, g, before))


def timed(cmd, env=None):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0


def slowdown(args):
    script = SYMPY_WORK + "\nfor i in range(%d):\n    unit(i)\n" % args.units
    modes = [("none", None)] + [("PYTHONTRACEMALLOC=%s" % f, f) for f in args.frames.split(",")]
    times = {m: [] for m, _ in modes}
    for r in range(args.repeat):
        for m, f in (modes if r % 2 == 0 else modes[::-1]):
            env = dict(os.environ)
            env.pop("PYTHONTRACEMALLOC", None)
            if f:
                env["PYTHONTRACEMALLOC"] = f
            times[m].append(timed([SYMPY_PY, "-c", script], env))
    report(times, "sympy, %d units" % args.units)


def node(args):
    """tsc with and without V8's allocation tracker; --no-opt beside, for
    the tracker crashes node 20 in TurboFan code (a run that crashes
    counts as nan, and its signal is said)."""
    cmd = [os.path.join(TSC, "tsc.js"), "--noEmit", "--lib", "es2022,dom", os.path.join(TSC, "typescript.d.ts")]
    modes = [("none", []), ("--track-heap-objects", ["--track-heap-objects"]), ("--no-opt", ["--no-opt"]),
             ("--track-heap-objects --no-opt", ["--track-heap-objects", "--no-opt"])]
    times = {m: [] for m, _ in modes}
    for r in range(args.repeat):
        for m, flags in (modes if r % 2 == 0 else modes[::-1]):
            try:
                times[m].append(timed(["node"] + flags + cmd))
            except subprocess.CalledProcessError as e:
                print("%s: exit %s%s" % (m, e.returncode, " (signal %d)" % -e.returncode if e.returncode < 0 else ""))
                times[m].append(float("nan"))
    report(times, "tsc --noEmit typescript.d.ts")


def report(times, what):
    base = statistics.median(times["none"])
    print("| %s | runs (s) | median | vs none |" % what)
    print("|---|---|---:|---:|")
    for m, ts in times.items():
        med = statistics.median(ts)
        print("| %s | %s | %.2f s | %.2fx |" % (m, ", ".join("%.2f" % t for t in ts), med, med / base))


def version(py):
    return subprocess.run([py, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                          text=True).stdout.strip()


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "target":
        return target(int(sys.argv[2]))
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["latency", "sympy", "slowdown", "node", "all"])
    ap.add_argument("--heapscope", default="heapscope")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--objects", type=int, default=1000000)
    ap.add_argument("--small", type=int, default=100000, help="all: the small heap's objects")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--frames", default="1,25")
    ap.add_argument("--units", type=int, default=40)
    ap.add_argument("--target-trace", type=int, default=0, help="latency, sympy: the target traces with N frames")
    args = ap.parse_args()
    print("load average %s, %s" % (os.getloadavg(), time.strftime("%Y-%m-%d %H:%M")))
    small = lambda trace=0: latency(args, args.python, args.small, "%d objects asked" % args.small, trace)
    large = lambda: latency(args, args.python, args.objects, "%d objects asked" % args.objects)
    sympy = lambda: latency(args, SYMPY_PY, -args.units, "sympy (Debian python3), %d results kept" % (2 * args.units),
                            args.target_trace)
    if args.mode == "latency":
        latency(args, args.python, args.objects, "%d objects asked" % args.objects, args.target_trace)
    elif args.mode == "sympy":
        sympy()
    elif args.mode == "slowdown":
        slowdown(args)
    elif args.mode == "node":
        node(args)
    else:
        print("python %s (latency), %s (sympy, slowdown); node %s" % (
            version(args.python), version(SYMPY_PY),
            subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()))
        for step in (small, large, lambda: small(1), sympy, lambda: slowdown(args), lambda: node(args)):
            print(flush=True)
            step()
            print("load average %s" % (os.getloadavg(),), flush=True)


if __name__ == "__main__":
    main()
