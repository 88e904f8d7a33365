"""A leak test harness: run a workload, snapshot the heap, and ask the
heapscope binary whether objects pile up in proportion to the work.

    from heapscope.leakcheck import assert_no_leaks
    assert_no_leaks(handle_request, iterations=50)

or, around a loop of your own:

    with heapscope.leakcheck.LeakCheck(iterations=50) as check:
        for _ in check:
            handle_request()

The workload runs `warmup` times, then the heap is snapshotted (A), then
it runs `iterations` times (B), and `iterations` times again (C). A leak is
a group of objects created between A and B, still alive at C, held by one
kind of path, and growing from A to B to C in proportion to the work
(`heapscope check --scaling`): a cache that fills once, or a bounded one,
is not a leak. Failures say which objects leak, how much memory they hold,
and the path that holds them.

The analysis runs in the heapscope binary: it is found through the
`binary` argument, then the HEAPSCOPE_BIN environment variable, then PATH.
"""

import json
import os
import shutil
import subprocess
import tempfile

__all__ = ["LeakCheck", "LeakError", "LeakReport", "assert_no_leaks", "find_leaks"]


class LeakError(AssertionError):
    """Raised when a workload leaks; .report holds the findings."""

    def __init__(self, report):
        self.report = report
        AssertionError.__init__(self, report.text())


class LeakReport:
    """What a leak check found. leaks: one dict per leaking group, with
    type, count, retained_bytes, path (the merged path that holds them)
    and counts (objects on that path at A, B and C)."""

    def __init__(self, result, snapshots):
        self.result = result
        self.snapshots = snapshots
        self.leaks = [v["finding"] for v in result.get("verdicts", []) if v.get("fail")]

    @property
    def ok(self):
        return not self.leaks

    def text(self):
        if self.ok:
            return "no leak"
        lines = ["%d leak(s):" % len(self.leaks)]
        for f in self.leaks:
            lines.append("  %s x %d, retained %s bytes, held by %s" % (
                f.get("type"), f.get("count", 0), f.get("retained_bytes", 0), f.get("path")))
            counts = f.get("counts")
            if counts:
                lines.append("    objects on that path: %s" % " -> ".join(str(c) for c in counts))
        if self.snapshots:
            lines.append("snapshots: %s" % ", ".join(self.snapshots))
        return "\n".join(lines)

    def __repr__(self):
        return "<LeakReport %s>" % ("ok" if self.ok else "%d leak(s)" % len(self.leaks))


def _binary(binary):
    b = binary or os.environ.get("HEAPSCOPE_BIN") or shutil.which("heapscope")
    if not b:
        raise RuntimeError("heapscope binary not found: pass binary=..., set HEAPSCOPE_BIN, or put heapscope on PATH")
    return b


class LeakCheck:
    """Iterate over a LeakCheck to run a workload the right number of
    times; leaving the `with` block analyses the snapshots and raises
    LeakError when something leaks (unless raise_on_leak is false; the
    report is then in .report)."""

    def __init__(self, iterations=50, warmup=5, binary=None, directory=None,
                 keep=False, config=None, raise_on_leak=True):
        if iterations < 1 or warmup < 0:
            raise ValueError("iterations must be at least 1 and warmup at least 0")
        self.iterations = int(iterations)
        self.warmup = int(warmup)
        self.binary = _binary(binary)
        self.directory = directory
        self.keep = keep
        self.config = config
        self.raise_on_leak = raise_on_leak
        self.report = None
        self._dir = None
        self._paths = []
        self._taken = 0

    def __enter__(self):
        self._dir = self.directory or tempfile.mkdtemp(prefix="heapscope-leakcheck-")
        os.makedirs(self._dir, exist_ok=True)
        # Made before the first snapshot, so that the harness's own
        # bookkeeping does not grow between the snapshots.
        self._paths = [os.path.join(self._dir, n + ".pysnap") for n in ("a", "b", "c")]
        return self

    def _snap(self, i):
        from . import snapshot
        if snapshot(self._paths[i], values=True) is None:
            raise RuntimeError("heapscope: could not write %s" % self._paths[i])
        self._taken = i + 1

    def __iter__(self):
        for _ in range(self.warmup):
            yield
        self._snap(0)
        for _ in range(self.iterations):
            yield
        self._snap(1)
        for _ in range(self.iterations):
            yield
        self._snap(2)

    def analyse(self):
        if self._taken != 3:
            raise RuntimeError("the leak check did not run to its end (%d of 3 snapshots)" % self._taken)
        cmd = [self.binary, "check", "--scaling", "--json"]
        if self.config:
            cmd += ["--config", self.config]
        proc = subprocess.run(cmd + self._paths, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1) or not proc.stdout:
            raise RuntimeError("heapscope check failed (%d): %s" % (proc.returncode, proc.stderr.strip()))
        self.report = LeakReport(json.loads(proc.stdout), list(self._paths))
        return self.report

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is not None:
                return False
            report = self.analyse()
            if not self.keep and not self.directory:
                report.snapshots = []   # removed below: do not point at them
            if not report.ok and self.raise_on_leak:
                raise LeakError(report)
            return False
        finally:
            if not self.keep and not self.directory and self._dir:
                shutil.rmtree(self._dir, ignore_errors=True)


def find_leaks(workload, *args, iterations=50, warmup=5, binary=None, config=None, **kwargs):
    """Runs workload(*args, **kwargs) warmup + 2 * iterations times and
    returns the LeakReport."""
    check = LeakCheck(iterations=iterations, warmup=warmup, binary=binary, config=config, raise_on_leak=False)
    with check:
        for _ in check:
            workload(*args, **kwargs)
    return check.report


def assert_no_leaks(workload, *args, iterations=50, warmup=5, binary=None, config=None, **kwargs):
    """Like find_leaks, but raises LeakError when the workload leaks."""
    report = find_leaks(workload, *args, iterations=iterations, warmup=warmup, binary=binary, config=config, **kwargs)
    if not report.ok:
        raise LeakError(report)
    return report
