"""The program's pause for a Python capture: stop the world against fork.

    python3 bench/attach/pause.py --heapscope BIN [--python PY] [--objects N] [--repeat R]
        [--kinds full,census] [--hows "attach fork,api fork"] [--against OTHER-BIN]

Starts a target (this file, `target N`) that builds the heap of
bench/python/bench.py (about N objects: instances with dicts, lists,
tuples, strs, ints and floats) and then runs small units of work in its
main thread, timing the gap between consecutive units, while a heartbeat
thread wakes every millisecond and times the gap between its wake-ups.
The main thread's longest gap is its pause; the heartbeat's is the time
no thread of the program could run (the interpreter lock held, or the
process stopped by gdb).

Then, interleaved and repeated, it takes snapshots of the target four
ways, each full and as a census:

  attach stw     heapscope snapshot --python PID --fork=false (the capture
                 runs in the target's main thread: today's capture)
  attach fork    heapscope snapshot --python PID (the default on Linux:
                 the target forks, the child walks its copy of the heap)
  api stw        heapscope.snapshot(path), called in the main thread
  api fork       heapscope.snapshot(path, fork=True)

(--hows picks among them; --against OTHER-BIN takes the attach captures
with another heapscope too, interleaved, as "attach ... (against)"), and
reports, per capture: the main thread's and the heartbeat's longest
gap while it ran, the time until the file was written, the agent's
capture time (META capture_seconds; for a fork, the child's walk) and
fork time (fork_seconds, as the child measured it), and for a fork the
child's peak private memory (Private_Dirty of /proc/CHILD/smaps_rollup,
sampled every 20 ms: the pages it copied and its own tables) against the
target's resident anonymous memory.
"""

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench import meta  # bench/attach/bench.py, beside this file

HERE = os.path.dirname(os.path.abspath(__file__))


def target(n):
    # bench/python/bench.py, by its path: "bench" is this directory's.
    import importlib.util
    spec = importlib.util.spec_from_file_location("pybench", os.path.join(HERE, "..", "python", "bench.py"))
    pybench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pybench)
    heap = pybench.build(n)   # noqa: F841 (kept alive)
    import gc
    import heapscope
    worst = {"main": 0.0, "heart": 0.0}

    def heartbeat():
        last = time.perf_counter()
        while True:
            time.sleep(0.001)
            now = time.perf_counter()
            worst["heart"] = max(worst["heart"], now - last)
            last = now

    threading.Thread(target=heartbeat, daemon=True).start()
    churn = []
    print("ready %d %d" % (len(gc.get_objects()), rss_anon("self")), flush=True)
    last = time.perf_counter()
    i = 0
    while True:
        churn.append({"i": i, "s": "x%d" % i})
        if len(churn) > 1000:
            del churn[:]
        i += 1
        now = time.perf_counter()
        worst["main"] = max(worst["main"], now - last)
        last = now
        if select.select([sys.stdin], [], [], 0)[0]:
            line = sys.stdin.readline().split()
            if not line:
                return
            if line[0] == "snap":
                # An in-process capture, asked by the program itself: its
                # time counts in the main thread's gap.
                c0 = time.thread_time()
                heapscope.snapshot(line[1], fork=line[2] == "fork", edges=line[3] == "full", collect=False)
                cpu = time.thread_time() - c0
                from heapscope import _fork
                print("taken %.4f %.4f" % (cpu, _fork.LAST.get("cpu_seconds", -1) if line[2] == "fork" else -1),
                      flush=True)
            else:
                print("%.1f %.1f" % (worst["main"] * 1000, worst["heart"] * 1000), flush=True)
                worst["main"] = worst["heart"] = 0.0
                last = time.perf_counter()


def rss_anon(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def private_dirty(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Private_Dirty:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def children(pid):
    """The children of every thread of process pid (a fork capture's
    child is the child of the agent's thread that forked)."""
    out = []
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                    out += [int(x) for x in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


class Target:
    def __init__(self, py, n):
        self.p = subprocess.Popen([py, os.path.abspath(__file__), "target", str(n)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "agent")))
        line = self.p.stdout.readline().split()
        if not line or line[0] != "ready":
            sys.exit("the target did not start")
        self.objects, self.rss = int(line[1]), int(line[2])

    def send(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().split()

    def gaps(self):
        g = self.send("gap")
        return float(g[0]) / 1000, float(g[1]) / 1000


def capture(args, tg, how, kind, path):
    """One capture: (seconds to the file, peak child memory, (the main
    thread's CPU time in snapshot(), the forking thread's CPU time in the
    fork): in-process only, else None)."""
    t0 = time.perf_counter()
    peak = 0
    cpu = None
    if how.startswith("attach"):
        binary = args.against if how.endswith("(against)") else args.heapscope
        cmd = [binary, "snapshot", "--python", str(tg.p.pid), "-o", path,
               "--fork=%s" % ("false" if "stw" in how else "true")]
        if kind == "census":
            cmd.append("--census")
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        while proc.poll() is None:
            for c in children(tg.p.pid):
                peak = max(peak, private_dirty(c))
            time.sleep(0.02)
        if proc.returncode != 0:
            sys.exit("heapscope snapshot failed")
    else:
        tg.p.stdin.write("snap %s %s %s\n" % (path, how.split()[1], kind))
        tg.p.stdin.flush()
        taken = tg.p.stdout.readline().split()
        cpu = (float(taken[1]), float(taken[2]))
        while not os.path.exists(path) or children(tg.p.pid):
            for c in children(tg.p.pid):
                peak = max(peak, private_dirty(c))
            time.sleep(0.02)
    return time.perf_counter() - t0, peak, cpu


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "target":
        return target(int(sys.argv[2]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--heapscope", default="heapscope")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--objects", type=int, default=5000000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kinds", default="full,census")
    ap.add_argument("--hows", default="attach stw,attach fork,api stw,api fork",
                    help="the captures to take, of: attach stw, attach fork, api stw, api fork")
    ap.add_argument("--against", metavar="BIN",
                    help="also take the attach captures with this other heapscope, interleaved")
    args = ap.parse_args()
    print("load average %s, %s; python %s" % (os.getloadavg(), time.strftime("%Y-%m-%d %H:%M"), subprocess.run(
        [args.python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True).stdout.strip()))
    tg = Target(args.python, args.objects)
    print("target: %d gc-tracked objects, RssAnon %.0f MiB" % (tg.objects, tg.rss / 2 ** 20), flush=True)
    out = tempfile.mkdtemp(prefix="heapscope-pause-")
    hows = args.hows.split(",")
    if args.against:
        hows += [h + " (against)" for h in hows if h.startswith("attach")]
    rows = {}
    try:
        time.sleep(1)
        tg.gaps()
        for r in range(args.repeat):
            for kind in args.kinds.split(","):
                for how in (hows if r % 2 == 0 else hows[::-1]):
                    time.sleep(1)
                    quiet = tg.gaps()
                    path = os.path.join(out, "s.pysnap")
                    secs, peak, cpu = capture(args, tg, how, kind, path)
                    main_gap, heart_gap = tg.gaps()
                    m = meta(path)
                    os.unlink(path)
                    rows.setdefault((how, kind), []).append(
                        (main_gap, heart_gap, secs, m.get("capture_seconds", 0), m.get("fork_seconds"), peak,
                         m.get("objects", 0), quiet[0], cpu))
                    print("%-21s %-6s main %.3f s heartbeat %.3f s file %.2f s capture %.2f s fork %s peak %.0f MiB "
                          "cpu %s" % (how, kind, main_gap, heart_gap, secs, m.get("capture_seconds", 0),
                                      m.get("fork_seconds"), peak / 2 ** 20, cpu), flush=True)
    finally:
        tg.p.kill()
        os.rmdir(out)
    print()
    print("| capture | kind | objects | main thread's longest gap | heartbeat's longest gap | to the file | "
          "capture (agent) | fork (child's view) | child's peak private memory | main thread's CPU in "
          "snapshot() / the fork's CPU | gap without a capture |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (how, kind), rs in rows.items():
        col = lambda i, fmt="%.3f": "%s (%s)" % (fmt % statistics.median(r[i] for r in rs),
                                                  "-".join(fmt % f(r[i] for r in rs) for f in (min, max)))
        forks = [r[4] for r in rs if r[4] is not None]
        cpus = [r[8] for r in rs if r[8] is not None]
        cpu = "-"
        if cpus:
            cpu = "%.3f s" % statistics.median(c[0] for c in cpus)
            if "fork" in how:
                cpu += " / %.4f s" % statistics.median(c[1] for c in cpus)
        print("| %s | %s | %s | %s s | %s s | %s s | %s s | %s | %s | %s | %.3f s |" % (
            how, kind, "{:,}".format(rs[0][6]), col(0), col(1), col(2, "%.2f"), col(3, "%.2f"),
            ("%.3f s" % statistics.median(forks)) if forks else "-",
            ("%.0f MiB" % (statistics.median(r[5] for r in rs) / 2 ** 20)) if "fork" in how else "-",
            cpu, statistics.median(r[7] for r in rs)))
    print("\nmedian (min-max) of %d runs; the target's RssAnon was %.0f MiB" % (args.repeat, tg.rss / 2 ** 20))


if __name__ == "__main__":
    main()
