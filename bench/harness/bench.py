"""What a @pytest.mark.no_leaks test costs, as the process heap grows.

For each kind of suite (bare pytest; numpy imported; sympy imported and
used; both), it writes a small project of N clean marked tests, runs
pytest on it with heapscope's plugin and without it (-p no:...: the
marker is then ignored and each body runs once), and reports the extra
wall and CPU time per marked test, with the size of the heap the
snapshots hold (objects and bytes, from `heapscope summary --json` of a
snapshot taken at the end of the session).

    PYTHONPATH=agent /usr/bin/python3 bench/harness/bench.py --heapscope ./heapscope --tests 5 --repeat 3
    PYTHONPATH=agent /usr/bin/python3 bench/harness/bench.py --heapscope ./heapscope --breakdown
    PYTHONPATH=agent /usr/bin/python3 bench/harness/bench.py --heapscope ./heapscope --suites sympy --against OLD/agent

--against DIR also runs each suite with the agent importable from DIR
(the agent/ directory of another checkout, say main's), in the same
round, interleaved with this one: the extra CPU per marked test of both
side by side.

CPU time is the pytest process's and its children's (the heapscope
checks), from resource.getrusage(RUSAGE_CHILDREN); on a shared machine it
is the steadier figure.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

SUITES = {
    "bare": "",
    "numpy": "import numpy\nnumpy.linalg.inv(numpy.eye(50))\n",
    "sympy": "import sympy\nx = sympy.Symbol('x')\nsympy.integrate(sympy.sin(x) ** 2 * sympy.exp(x), x)\n",
    "sympy+numpy": "import numpy\nimport sympy\nx = sympy.Symbol('x')\nsympy.integrate(sympy.sin(x) ** 2 * sympy.exp(x), x)\n"
                   "numpy.linalg.inv(numpy.eye(50))\n",
}

CONFTEST = '''{imports}
import os
import heapscope


def pytest_sessionfinish(session):
    out = os.environ.get("BENCH_SNAPSHOT")
    if out:
        heapscope.snapshot(out)
'''

TEST = '''import pytest


class Request:
    def __init__(self, n):
        self.n = n
        self.body = "x" * 200


@pytest.mark.no_leaks(iterations=10, warmup=2)
def test_request_{i}():
    [Request(i) for i in range(20)]
'''


# Where a check's time goes: three snapshots of the suite's heap, then
# `heapscope check` on them, in a process that imports what the suite's
# conftest.py imports.
BREAKDOWN = '''{imports}
import pytest, _pytest.python, os, resource, subprocess, sys, time
import heapscope
d, hs = sys.argv[1], sys.argv[2]
paths = [os.path.join(d, n + ".pysnap") for n in "abc"]
t0 = time.process_time()
for p in paths:
    heapscope.snapshot(p)
snap = time.process_time() - t0
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run([hs, "check", "--scaling", "--json"] + paths, stdout=subprocess.DEVNULL, check=False)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %.2f %d" % (snap, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, os.path.getsize(paths[0])))
'''


def breakdown(name, hs, env):
    d = tempfile.mkdtemp(prefix="heapscope-bench-harness-")
    try:
        p = subprocess.run([sys.executable, "-c", BREAKDOWN.format(imports=SUITES[name]), d, hs], env=env,
                           stdout=subprocess.PIPE, text=True, check=True)
        snap, check, size = p.stdout.split()
        print("| %s | %s s | %s s | %.1f MB |" % (name, snap, check, int(size) / 1e6))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run(cmd, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--heapscope", required=True, help="the heapscope program")
    ap.add_argument("--tests", type=int, default=5, help="marked tests per suite")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--suites", default=",".join(SUITES))
    ap.add_argument("--against", help="also time the agent of this directory (another checkout's agent/)")
    ap.add_argument("--breakdown", action="store_true",
                    help="only time the three snapshots and the check, CPU seconds, per suite")
    args = ap.parse_args()
    hs = os.path.abspath(args.heapscope)
    # pytest runs in a temporary directory: make PYTHONPATH absolute.
    pp = os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    env = dict(os.environ, HEAPSCOPE_BIN=hs, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=pp)
    print("python %s, %d marked tests per suite, %d repeats; load average %s" % (
        sys.version.split()[0], args.tests, args.repeat, " ".join("%.1f" % x for x in os.getloadavg())))
    if args.breakdown:
        print("| suite | 3 snapshots, CPU | check, CPU | one snapshot file |")
        print("|---|---|---|---|")
        for name in args.suites.split(","):
            breakdown(name, hs, env)
        return
    agents = [("this", env)]
    if args.against:
        agents.append(("against", dict(env, PYTHONPATH=os.pathsep.join([os.path.abspath(args.against)] + [
            p for p in pp.split(os.pathsep) if p and os.path.abspath(p) != os.path.abspath("agent")]))))
    print("| suite | agent | heap (objects, bytes) | extra wall per marked test (s) | extra CPU per marked test (s) |")
    print("|---|---|---|---|---|")
    for name in args.suites.split(","):
        d = tempfile.mkdtemp(prefix="heapscope-bench-harness-")
        try:
            with open(os.path.join(d, "conftest.py"), "w") as f:
                f.write(CONFTEST.format(imports=SUITES[name]))
            for i in range(args.tests):
                with open(os.path.join(d, "test_%d.py" % i), "w") as f:
                    f.write(TEST.format(i=i))
            base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            walls = {a: [] for a, _ in agents}
            cpus = {a: [] for a, _ in agents}
            for r in range(args.repeat):
                for a, aenv in (agents if r % 2 == 0 else agents[::-1]):
                    p, w1, c1 = run(base + ["-p", "heapscope.pytest_plugin"], d, aenv)
                    if p.returncode != 0 or "%d passed" % args.tests not in p.stdout:
                        sys.exit("%s: the checked run failed:\n%s" % (name, p.stdout))
                    p, w0, c0 = run(base, d, aenv)
                    if p.returncode != 0:
                        sys.exit("%s: the plain run failed:\n%s" % (name, p.stdout))
                    walls[a].append((w1 - w0) / args.tests)
                    cpus[a].append((c1 - c0) / args.tests)
            snap = os.path.join(d, "end.pysnap")
            run(base + ["-p", "heapscope.pytest_plugin"], d, dict(env, BENCH_SNAPSHOT=snap))
            out = subprocess.run([hs, "summary", "--json", snap], stdout=subprocess.PIPE, text=True).stdout
            ov = json.loads(out)["snapshot"]["overview"]
            for a, _ in agents:
                print("| %s | %s | %d objects, %.1f MiB | %s | %s |" % (
                    name, a if a == "this" else args.against, ov["objects"], ov["bytes"] / 2**20,
                    "-".join("%.2f" % x for x in (min(walls[a]), max(walls[a]))),
                    "-".join("%.2f" % x for x in (min(cpus[a]), max(cpus[a])))))
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
