"""Benchmark of the heapscope Python agent against a bare stdlib traversal.

    python3 bench/python/bench.py --objects 1000000 [--objgraph] [--out DIR] [--keep PATH]
    /usr/bin/python3 bench/python/bench.py --sympy --objects 2000000

Builds a heap of about N objects (a mix of class instances, dicts, lists,
tuples, strs, ints and floats; about 30% of them gc-tracked; with --sympy,
sympy expressions, mostly instances of classes with __slots__), then, in the
same run, measures each method in a child process forked from the process
that holds the heap:

  bare      gc.get_objects() + gc.get_referents DFS with a seen-set of ids,
            per-type counts and sys.getsizeof (the yardstick)
  agent     heapscope.snapshot(path) (gc.collect() off, values on)
  objgraph  objgraph.typestats() (if objgraph can be imported)

Each child starts with the parent's heap (copy-on-write; RSS counts shared
pages, so copying a page on write does not change RSS), resets its peak RSS
(writes 5 to /proc/self/clear_refs), runs the method once and reports wall
time and VmHWM - VmRSS(at start): the method's extra peak memory. Forked
children make every method start from the same state; measuring them one
after another in one process would let a later method reuse memory an
earlier one freed. Use --repeat to run each method several times (children
alternate) and report every run. --keep PATH keeps the agent's snapshot
(of the last run) at PATH and prints its path, e.g. to time
`heapscope summary` on it; without it the snapshot is removed at the end.
--against DIR also times the agent importable from DIR (the agent/
directory of another checkout, say main's) in the same run, right after
this one, on the same heap: the ratio of the two is the change's cost.
Each child imports its agent before the clock starts (a program imports
heapscope once, not per snapshot).
"""

import argparse
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "agent"))


class Rec:
    def __init__(self, i, name, tags, pool):
        self.name = name
        self.id = 10 ** 12 + i
        self.score = i * 0.5
        self.tags = [tags[i % len(tags)], tags[(i * 7) % len(tags)]]
        self.meta = {"k": pool[i % len(pool)] + str(i % 1000), "v": i % 100000 + 1000,
                     "l": [float(i)]}
        self.pos = (i * 3 + 100000, i / 3.0)


def build(n):
    """About 13 objects per record (4 of them gc-tracked)."""
    tags = ["tag%d" % i for i in range(500)]
    pool = ["k%d-" % i for i in range(100)]
    recs = []
    index = {}
    per = 13
    for i in range(n // per):
        name = "rec-%08d" % i
        r = Rec(i, name, tags, pool)
        recs.append(r)
        index[name] = r
    gc.collect()
    return recs, index


def build_sympy(n):
    """A heap of sympy expressions, most of whose objects are instances
    of classes with __slots__: per term a Symbol, an Integer, a Mul, a
    Pow and an Add, their argument tuples and assumption dicts, about 13
    objects (about 8 gc-tracked)."""
    from sympy import Add, Integer, Mul, Pow, Symbol
    x = Symbol("x")
    terms = []
    for i in range(n // 13):
        s = Symbol("s%d" % i)
        terms.append(Add(Mul(Integer(i + 2), s, evaluate=False),
                         Pow(x, Integer(i % 7 + 2), evaluate=False), evaluate=False))
    gc.collect()
    return terms


def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) * 1024
    return out


def bare():
    objs = gc.get_objects()
    seen = set(map(id, objs))
    stack = list(objs)
    del objs
    counts = {}
    total = 0
    n = 0
    getsizeof = sys.getsizeof
    get_referents = gc.get_referents
    while stack:
        o = stack.pop()
        t = type(o)
        counts[t] = counts.get(t, 0) + 1
        total += getsizeof(o)
        n += 1
        for r in get_referents(o):
            i = id(r)
            if i not in seen:
                seen.add(i)
                stack.append(r)
    return n, total


def load_agent(directory=None):
    """Imports heapscope, from directory if given (in a forked child)."""
    if directory:
        sys.path.insert(0, directory)
    import heapscope
    import heapscope._capture   # older agents imported it at the first snapshot
    return heapscope


def agent(path):
    import heapscope
    p = heapscope.snapshot(path, collect=False)
    if p is None:
        raise SystemExit("snapshot failed")
    return os.path.getsize(p)


def census(path):
    import heapscope
    p = heapscope.snapshot(path, collect=False, edges=False)
    if p is None:
        raise SystemExit("census failed")
    return os.path.getsize(p)


def objgraph_typestats():
    import objgraph
    return len(objgraph.typestats())


def in_child(fn, *args, setup=None):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            if setup is not None:
                setup()
            gc.disable()
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                pass
            s0 = status()
            t0 = time.perf_counter()
            c0 = time.process_time()
            res = fn(*args)
            dt = time.perf_counter() - t0
            cpu = time.process_time() - c0
            s1 = status()
            msg = "%r %r %r %r" % (dt, cpu, s1["VmHWM"] - s0["VmRSS"], res)
        except BaseException as e:
            msg = "ERR %r" % (e,)
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        data += b
    os.close(r)
    os.waitpid(pid, 0)
    s = data.decode()
    if s.startswith("ERR"):
        raise SystemExit(s)
    dt, cpu, peak, res = s.split(" ", 3)
    return float(dt), float(cpu), int(peak), res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--objgraph", action="store_true")
    ap.add_argument("--out", default="/tmp")
    ap.add_argument("--keep", metavar="PATH", help="keep the agent's snapshot at PATH")
    ap.add_argument("--census", action="store_true",
                    help="also time a census (heapscope.snapshot(edges=False)); kept at PATH.census with --keep")
    ap.add_argument("--against", metavar="DIR",
                    help="also time the agent importable from DIR (another checkout's agent/ directory)")
    ap.add_argument("--sympy", action="store_true",
                    help="build a heap of sympy expressions (instances of __slots__ classes) instead of records")
    ap.add_argument("--heapscope", metavar="BIN",
                    help="time BIN summary on the census and print capture + summary (with --census)")
    a = ap.parse_args()
    if a.against:
        a.against = os.path.abspath(a.against)
    t0 = time.perf_counter()
    heap = build_sympy(a.objects) if a.sympy else build(a.objects)
    tracked = len(gc.get_objects())
    print("python %s; built heap in %.1fs; gc-tracked objects %d; RSS %.0f MB"
          % (sys.version.split()[0], time.perf_counter() - t0, tracked, status()["VmRSS"] / 1e6))
    path = os.path.abspath(a.keep) if a.keep else os.path.join(a.out, "bench-%d.pysnap" % os.getpid())
    rows = []
    for rep in range(a.repeat):
        n, total = None, None
        dt, cpu, peak, res = in_child(bare)
        n = int(res.strip("()").split(",")[0])
        rows.append(("bare", dt, cpu, peak, n))
        print("bare     wall %.2fs cpu %.2fs  peak +%.0f MB  objects %d  (%.1f B/object)"
              % (dt, cpu, peak / 1e6, n, peak / n))
        # With --against, the two agents take turns going first.
        if a.against and rep % 2:
            other = in_child(agent, path, setup=lambda: load_agent(a.against))
        dt, cpu, peak, res = in_child(agent, path, setup=load_agent)
        if a.against and not rep % 2:
            other = in_child(agent, path, setup=lambda: load_agent(a.against))
        rows.append(("agent", dt, cpu, peak, n))
        print("agent    wall %.2fs cpu %.2fs  peak +%.0f MB  file %.0f MB  (%.1f B/object)  "
              "ratio agent/bare wall %.2f cpu %.2f"
              % (dt, cpu, peak / 1e6, int(res) / 1e6, peak / n, dt / rows[-2][1], cpu / rows[-2][2]))
        if a.against:
            bdt, bcpu, bpeak, bres = other
            print("against  wall %.2fs cpu %.2fs  peak +%.0f MB  file %.0f MB  (%.1f B/object)  "
                  "ratio agent/against wall %.2f cpu %.2f"
                  % (bdt, bcpu, bpeak / 1e6, int(bres) / 1e6, bpeak / n, dt / bdt, cpu / bcpu))
        if a.census:
            cpath = path + ".census"
            dt, cpu, peak, res = in_child(census, cpath, setup=load_agent)
            print("census   wall %.2fs cpu %.2fs  peak +%.0f MB  file %.0f MB  (%.1f B/object)"
                  % (dt, cpu, peak / 1e6, int(res) / 1e6, peak / n))
            if a.heapscope:
                import resource
                import subprocess
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                subprocess.run([a.heapscope, "summary", cpath], check=True, stdout=subprocess.DEVNULL)
                sdt = time.perf_counter() - t
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                scpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                print("summary  wall %.2fs cpu %.2fs;  census + summary wall %.2fs cpu %.2fs"
                      % (sdt, scpu, dt + sdt, cpu + scpu))
            if not a.keep:
                os.remove(cpath)
        if a.objgraph:
            try:
                dt, cpu, peak, res = in_child(objgraph_typestats)
                print("objgraph wall %.2fs cpu %.2fs  peak +%.0f MB  (typestats, gc-tracked objects only)"
                      % (dt, cpu, peak / 1e6))
            except SystemExit as e:
                print("objgraph unavailable:", e)
    if a.keep:
        print("snapshot kept at", path, "(%d bytes)" % os.path.getsize(path))
    elif os.path.exists(path):
        os.remove(path)
    del heap


if __name__ == "__main__":
    main()
