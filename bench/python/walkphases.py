"""Where a tally's CPU goes: each step of heapscope's census walk, timed.

    PYTHONPATH=agent /usr/bin/python3 bench/python/walkphases.py --objects 5000000 [--agent OTHER/agent] [--objgraph]

Builds the heap of bench.py, then, in a child forked from the process
that holds it (as growth.py runs heapscope.growth()), takes two tallies
(_census.tally, what growth() counts) with each step timed on its own
(CPU time; a step's time leaves out the steps it calls): the collection,
the listing of the objects without the agent's own, the types, sizes and
counts of the emitted objects, the sorting of untracked referents by
reference count (take), the keys of str-keyed dicts, and the rest of the
walk. Prints a table, one column per tally. --objgraph also times
objgraph.show_growth() twice in such a child, each call on its own.
"""

import argparse
import ast
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

STEPS = [("collect", "`gc.collect()`"),
         ("listed", "`gc.get_objects()`, the agent's own objects left out"),
         ("_types", "types of every object (ids, new types registered)"),
         ("_sizes", "sizes of every object"),
         ("emit", "counts by (type, size)"),
         ("take", "untracked referents sorted by reference count, shared ones into a dict by id"),
         ("add_keys", "keys of str-keyed dicts"),
         ("_code_fields", "fields of code objects"),
         ("rest", "the rest of the walk (referents of every tracked object, their tracking, containers)"),
         ("total", "total")]


def timed():
    from heapscope import _census as C
    T = time.process_time
    acc, stack = {}, []

    def wrap(obj, name):
        f = getattr(obj, name)

        def w(*a, **k):
            t0 = T()
            stack.append(0.0)
            try:
                return f(*a, **k)
            finally:
                inner = stack.pop()
                dt = T() - t0
                acc[name] = acc.get(name, 0) + dt - inner
                if stack:
                    stack[-1] += dt
        setattr(obj, name, w)

    for obj, name in ((C.Census, "_types"), (C.Census, "_sizes"), (C.Tally, "emit"), (C._Found, "take"),
                      (C._Found, "add_keys"), (C, "_code_fields")):
        wrap(obj, name)
    out = []
    for _ in range(2):
        acc.clear()
        t0 = T()
        gc.collect()
        acc["collect"] = T() - t0
        t0 = T()
        objs, w = C._listed(False)
        acc["listed"] = T() - t0
        c = C.Tally(w)
        t0 = T()
        C._walk(c, objs, w)
        walk = T() - t0
        c.result()
        acc["rest"] = walk - sum(v for k, v in acc.items() if k not in ("collect", "listed"))
        acc["total"] = acc["collect"] + acc["listed"] + walk
        out.append(dict(acc))
    return out


def objgraph_calls():
    import objgraph
    out = []
    with open(os.devnull, "w") as devnull:
        for _ in range(2):
            t0 = time.process_time()
            objgraph.show_growth(file=devnull)
            out.append(time.process_time() - t0)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objects", type=int, default=5000000)
    ap.add_argument("--agent", metavar="DIR", help="time the agent of DIR (another checkout's agent/) instead")
    ap.add_argument("--objgraph", action="store_true", help="also time objgraph.show_growth() twice")
    args = ap.parse_args()
    agent = os.path.abspath(args.agent) if args.agent else None
    heap = bench.build(args.objects)  # noqa: F841 (kept alive)
    print("python %s; %d gc-tracked objects; load average %s" % (
        sys.version.split()[0], len(gc.get_objects()), " ".join("%.1f" % x for x in os.getloadavg())))
    _, _, _, res = bench.in_child(timed, setup=lambda: bench.load_agent(agent))
    first, second = ast.literal_eval(res)   # the child's repr of two dicts of floats
    print("| step | first tally | second tally |")
    print("|---|---:|---:|")
    for k, label in STEPS:
        print("| %s | %.2f s | %.2f s |" % (label, first.get(k, 0), second.get(k, 0)))
    if args.objgraph:
        _, _, _, res = bench.in_child(objgraph_calls)
        a, b = ast.literal_eval(res)
        print("| objgraph.show_growth() | %.2f s | %.2f s |" % (a, b))


if __name__ == "__main__":
    main()
