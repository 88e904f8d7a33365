"""Per-type growth: heapscope against objgraph's show_growth, on one heap.

    PYTHONPATH=/usr/lib/python3/dist-packages /usr/bin/python3 bench/python/growth.py \
        --heapscope BIN --objects 5000000 --repeat 3

Builds the heap of bench.py (about N objects; the same records), then,
in children forked from the process that holds it (bench.in_child: each
starts from the same heap), interleaved and repeated:

  objgraph    objgraph.show_growth() twice (Debian's python3-objgraph; it
              collects garbage, then counts the gc-tracked objects by
              type name, without sizes)
  census      heapscope.snapshot(path, edges=False) twice (each with
              gc.collect(), as show_growth collects), then `heapscope
              diff` of the two census files (its CPU counted in)
  growth      heapscope.growth() twice: the census counted in memory, no
              file (every object, tracked or not, with its bytes)
  diff        `heapscope diff` of the two census files alone

and reports wall and CPU time (the child's, plus its children's for the
diff), and the objects each counted. --against DIR also runs census and
growth with the agent importable from DIR (the agent/ directory of
another checkout, say main's), in the same rounds, interleaved.
"""

import argparse
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (builds the heap, forks the children)

DEVNULL = open(os.devnull, "w")


def objgraph_twice():
    import objgraph
    objgraph.show_growth(file=DEVNULL)
    objgraph.show_growth(file=DEVNULL)
    return len(objgraph.typestats())


def diff_cpu(hs, a, b):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([hs, "diff", a, b], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def census_twice(hs, a, b):
    import heapscope
    for p in (a, b):
        if heapscope.snapshot(p, edges=False) is None:
            raise SystemExit("census failed")
    return diff_cpu(hs, a, b)


def growth_twice():
    import heapscope
    heapscope.growth(file=False)
    rows = heapscope.growth(file=False, limit=None)
    return len(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--heapscope", required=True)
    ap.add_argument("--objects", type=int, default=5000000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="/tmp")
    ap.add_argument("--against", metavar="DIR", help="also time census and growth with the agent of DIR")
    args = ap.parse_args()
    other = os.path.abspath(args.against) if args.against else None
    hs = os.path.abspath(args.heapscope)
    t0 = time.perf_counter()
    heap = bench.build(args.objects)  # noqa: F841 (kept alive)
    import gc
    print("python %s; heap built in %.0f s: %d gc-tracked objects; load average %s" % (
        sys.version.split()[0], time.perf_counter() - t0, len(gc.get_objects()),
        " ".join("%.1f" % x for x in os.getloadavg())), flush=True)
    a = os.path.join(args.out, "growth-a-%d.pysnap" % os.getpid())
    b = os.path.join(args.out, "growth-b-%d.pysnap" % os.getpid())
    kinds = ["objgraph", "census", "growth"] + (["census-against", "growth-against"] if other else [])
    rows = {k: [] for k in kinds + ["diff"]}
    for r in range(args.repeat):
        for k in (kinds if r % 2 == 0 else kinds[::-1]):
            setup = (lambda: bench.load_agent(other)) if k.endswith("-against") else bench.load_agent
            if k == "objgraph":
                dt, cpu, _, res = bench.in_child(objgraph_twice)
                rows[k].append((dt, cpu))
            elif k.startswith("census"):
                dt, cpu, _, res = bench.in_child(census_twice, hs, a, b, setup=setup)
                rows[k].append((dt, cpu + float(res)))
                if k == "census":
                    t = time.perf_counter()
                    dcpu = diff_cpu(hs, a, b)
                    rows["diff"].append((time.perf_counter() - t, dcpu))
            else:
                dt, cpu, _, res = bench.in_child(growth_twice, setup=setup)
                rows[k].append((dt, cpu))
            print("%-14s wall %.2f s cpu %.2f s" % (k, rows[k][-1][0], rows[k][-1][1]), flush=True)
    for p in (a, b):
        try:
            os.remove(p)
        except OSError:
            pass
    print()
    print("| what | wall | CPU | CPU / objgraph's |")
    print("|---|---:|---:|---:|")
    labels = {"objgraph": "objgraph.show_growth() twice", "census": "census + census + `heapscope diff`",
              "growth": "heapscope.growth() twice", "diff": "`heapscope diff` of the two censuses",
              "census-against": "census + census + `heapscope diff`, agent of %s" % args.against,
              "growth-against": "heapscope.growth() twice, agent of %s" % args.against}
    og = sorted(x[1] for x in rows["objgraph"])
    for k in ["objgraph", "census", "growth", "diff"] + kinds[3:]:
        w = sorted(x[0] for x in rows[k])
        c = sorted(x[1] for x in rows[k])
        print("| %s | %.2f-%.2f s | %.2f-%.2f s | %.1f-%.1fx |" % (labels[k], w[0], w[-1], c[0], c[-1],
                                                              c[0] / og[-1], c[-1] / og[0]))

if __name__ == "__main__":
    main()
