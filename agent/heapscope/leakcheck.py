"""A leak test harness: run a workload, snapshot the heap, and ask the
heapscope program whether objects pile up in proportion to the work.

    from heapscope.leakcheck import assert_no_leaks
    assert_no_leaks(handle_request, iterations=50)

around a loop of your own:

    with heapscope.leakcheck.LeakCheck(iterations=50) as check:
        for _ in check:
            handle_request()

or as a decorator, for plain unittest (python -m unittest) and pytest:

    class TestHandler(unittest.TestCase):
        @heapscope.leakcheck.no_leaks(iterations=20)
        def test_handle(self):
            handle_request()

The workload runs `warmup` times, then the objects of the heap are
counted by type (A), then it runs `iterations` times (B), and
`iterations` times again (C). When no type has more objects at B than at
A and more again at C, nothing piles up and the check passes on those
counts alone (objects counted by type in memory: no snapshot, no
heapscope program); when none has more at B than at A, it passes there,
without C.
Otherwise the check goes on with full snapshots: A, `iterations` more
runs, B, `iterations` more, C; a leak is a group of objects created
between A and B, still alive at C, held by one kind of path, and growing
from A to B to C in proportion to the work (`heapscope check --scaling`):
a cache that fills once, or a bounded one, is not a leak. Growth that known machinery holds (what pytest's fixtures
and unittest.mock record about each run, the interpreter's own caches) is
set aside, and the report says what was. Failures say which objects
leak, how much memory they hold and the path that holds them, and keep
the three snapshots (their directory is in the message).

The analysis runs in the heapscope program, found through the `binary`
argument, then the HEAPSCOPE_BIN environment variable, then a copy that
a heapscope-agent wheel carries (heapscope/bin/heapscope), then PATH.
"""

import functools
import inspect
import json
import os
import shutil
import subprocess
import tempfile
import unittest

__all__ = ["BinaryNotFound", "LeakCheck", "LeakError", "LeakReport", "assert_no_leaks", "find_leaks",
           "find_binary", "human_bytes", "no_leaks"]

_NAMES = ("a.pysnap", "b.pysnap", "c.pysnap")
__unittest = True   # unittest leaves this module's frames out of its tracebacks


class LeakError(AssertionError):
    """Raised when a workload leaks; .report holds the findings."""

    def __init__(self, report):
        self.report = report
        AssertionError.__init__(self, format_failure(report))


def format_failure(report, name=None):
    """The message of a failed check: the one place its wording is made
    (the pytest plugin's failures, LeakError's text). name: the test's
    name, for a first line that names it."""
    text = report.text()
    return "heapscope: %s leaks\n%s" % (name, text) if name else text


class BinaryNotFound(RuntimeError):
    """The heapscope program could not be found (see find_binary)."""


def human_bytes(n):
    """Formats a byte count as heapscope does: 100 B, 8.2 KiB, 3.1 MiB."""
    n = int(n)
    if n < 1024:
        return "%d B" % n
    v = float(n)
    for suffix in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        v /= 1024
        if v < 1024 or suffix == "PiB":
            return "%.1f %s" % (v, suffix)


class LeakReport:
    """What a leak check found.

    leaks: one dict per leaking group (the `finding` of heapscope check
    --json): type, count, retained_bytes, path (the merged path that holds
    them) and counts (objects on that path at A, B and C).
    set_aside: one dict per group set aside as known noise: type, count,
    path, rule (the noise rule's name), reason and owner (the type whose
    state holds the group, when the path has one).
    snapshots: the paths of the three snapshots while they exist ([]
    once removed); runs: the runs of the workload before each snapshot.
    counts: when the check was decided from the counts of objects per
    type alone (nothing grew twice), {type: [count at A, B, C]} of the
    types that grew at all ({} when nothing grew from A to B, and C was
    not counted), else None."""

    def __init__(self, result, snapshots, runs=None, counts=None):
        self.result = result
        self.snapshots = list(snapshots)
        self.runs = list(runs or [])
        self.counts = counts
        self.leaks = []
        self.set_aside = []
        for v in result.get("verdicts", []):
            f = v.get("finding", {})
            if v.get("fail"):
                self.leaks.append(f)
            elif f.get("noise"):
                self.set_aside.append({
                    "type": f.get("type"), "count": f.get("count", 0), "path": f.get("path"),
                    "rule": f.get("noise"), "owner": v.get("owner", ""),
                    "reason": v.get("reason", "").replace("set aside: ", "", 1)})

    @property
    def ok(self):
        return not self.leaks

    def text(self):
        """The report as a person reads it: every leak, what was set
        aside, and where the snapshots are."""
        lines = []
        if self.ok:
            lines.append("no leak")
        else:
            # The cause first, in one line: what leaks where, and what
            # holds it; then every cause in detail.
            first = self.leaks[0]
            head = "leak: %s, retaining %s; %s" % (first.get("text") or first.get("type"),
                                                  human_bytes(first.get("retained_bytes", 0)), first.get("held_by", ""))
            if len(self.leaks) > 1:
                head += " (and %d more cause%s below)" % (len(self.leaks) - 1, "" if len(self.leaks) == 2 else "s")
            lines.append(head)
            lines.append("%d cause%s of leaks:" % (len(self.leaks), "" if len(self.leaks) == 1 else "s"))
            for f in self.leaks:
                lines.extend(_finding_lines(f, self.runs))
        lines.extend(self.set_aside_lines())
        if self.snapshots:
            d = os.path.dirname(self.snapshots[0])
            after = " (after %s runs)" % _and(self.runs) if self.runs else ""
            lines.append("snapshots kept in %s: %s%s" % (
                d, ", ".join(os.path.basename(p) for p in self.snapshots), after))
            lines.append("  look again: heapscope leaks --scaling %s" % " ".join(self.snapshots))
        return "\n".join(lines)

    def set_aside_lines(self, limit=8):
        """Lines that say what was set aside and why, by rule and owner."""
        if not self.set_aside:
            return []
        groups = {}
        for s in self.set_aside:
            g = groups.setdefault((s["rule"], s["owner"]), {"count": 0, "types": [], "reason": s["reason"]})
            g["count"] += s["count"]
            if s["type"] not in g["types"]:
                g["types"].append(s["type"])
        total = sum(g["count"] for g in groups.values())
        lines = ["set aside %d object%s that are not this workload's leak:" % (total, "" if total == 1 else "s")]
        ordered = sorted(groups.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
        for (rule, owner), g in ordered[:limit]:
            held = " held by %s" % owner if owner else ""
            lines.append("  %d %s%s (%s: %s)" % (g["count"], ", ".join(g["types"]), held, rule, g["reason"]))
        if len(ordered) > limit:
            lines.append("  and %d more groups" % (len(ordered) - limit))
        return lines

    def __repr__(self):
        return "<LeakReport %s>" % ("ok" if self.ok else "%d leak(s)" % len(self.leaks))


def _finding_lines(f, runs):
    """The lines of one leaking group: what, how much, the path that holds
    it, how it grew, and, when the snapshots record it (trace_alloc, or
    tracemalloc started by the program), where its objects were
    allocated."""
    what = f.get("text") or "%s x %d" % (f.get("type"), f.get("count", 0))
    lines = ["  %s, retaining %s" % (what, human_bytes(f.get("retained_bytes", 0))),
             "    %s" % (f.get("held_by") or "held by %s" % f.get("path"))]
    counts = (f.get("gains") or {}).get("counts")
    if counts:
        after = " after %s runs" % _and(runs) if len(runs) == len(counts) else ""
        lines.append("    objects on that path%s: %s" % (after, " -> ".join(str(c) for c in counts)))
    inside = (f.get("gains") or {}).get("inside")
    if isinstance(inside, dict) and isinstance(inside.get("held"), list) and len(inside["held"]) == 2:
        # What grows is what these objects hold (a list set once on an
        # object, appended to ever after): their own count need not.
        lines.append("    what they hold grew: %s %s more, held %s in the second snapshot and %s in the third" % (
            inside.get("new", 0), inside.get("type", "?"), inside["held"][0], inside["held"][1]))
    parts = f.get("parts") or []
    if len(parts) > 1:
        for p in parts[:8]:
            lines.append("    part: %s, held by %s" % (p.get("text"), p.get("path")))
        if len(parts) > 8:
            lines.append("    and %d more parts" % (len(parts) - 8))
        label = "    allocated at "
        for text in _part_site_lines(parts[:8]):
            lines.append(label + text)
            label = " " * len(label)
    else:
        label = "    allocated at "
        for text in _site_lines(f.get("allocated")):
            lines.append(label + text)
            label = " " * len(label)
    return lines


def _site_lines(alloc):
    """The lines that say where a set was allocated (heapscope check's
    JSON: sites with their frames, and the index of the program's own
    frame): "where (12 objects, 1.1 KiB)"."""
    out = ["%s (%s, %s)" % (where, _count(n, ""), human_bytes(b)) for where, n, b in _sites(alloc)]
    n = alloc.get("unknown", 0) if isinstance(alloc, dict) else 0
    if n:
        out.append("not recorded (%s)" % _count(n, ""))
    return out


def _part_site_lines(parts):
    """The lines that say where the parts of a finding were allocated:
    one per site, with what of each part type was made there
    ("where (60 Add, 142 Rational; 11.6 KiB)"), in the order the parts
    first name the sites; what was not recorded last."""
    at = {}   # where -> [{type: objects}, bytes], in order
    for p in parts:
        noun = str(p.get("type") or "")
        for where, n, b in _sites(p.get("allocated")):
            line = at.setdefault(where, [{}, 0])
            line[0][noun] = line[0].get(noun, 0) + n
            line[1] += b
    unknown = {}
    for p in parts:
        alloc = p.get("allocated")
        n = alloc.get("unknown", 0) if isinstance(alloc, dict) else 0
        if n:
            noun = str(p.get("type") or "")
            unknown[noun] = unknown.get(noun, 0) + n
    out = []
    for where, (types, b) in at.items():
        what = ", ".join("%d %s" % (n, t) for t, n in types.items())
        out.append("%s (%s%s%s)" % (where, what, "; " if len(types) > 1 else ", ", human_bytes(b)))
    if unknown:
        out.append("not recorded (%s)" % ", ".join("%d %s" % (n, t) for t, n in unknown.items()))
    return out


def _sites(alloc):
    """(where, objects, bytes) of each site of alloc (see _site_lines):
    where is the innermost frame, then the program's own and its caller
    past the library frames, or the first three frames that are not the
    check's own."""
    if not isinstance(alloc, dict):
        return []
    out = []
    for s in alloc.get("sites") or []:
        frames = s.get("frames") or []
        prog = s.get("program", -1)
        if not isinstance(prog, int) or prog < 0 or prog >= len(frames):
            prog = -1
        if prog >= 3:
            where = "%s <- ... <- %s" % (_frame(frames[0]), " <- ".join(_frame(fr) for fr in frames[prog:prog + 2]))
        else:
            # The check's own frames (the loop that calls the workload)
            # say nothing of where the program allocates.
            theirs = [fr for fr in frames if not str(fr.get("file") or "").startswith(_OWN_DIR)]
            where = " <- ".join(_frame(fr) for fr in (theirs or frames)[:3]) or "?"
        out.append((where, s.get("count", 0), s.get("bytes", 0)))
    return out


def _count(n, noun):
    """ "12 objects", "1 object", or "12 app.Session" when noun is given."""
    return "%d%s" % (n, noun) if noun else "%d object%s" % (n, "" if n == 1 else "s")


_WATCH_FRAMES = 16  # frames of each allocation a check's watch records
_WATCH_MAX = 64     # classes a check watches at most (a factory may make thousands)

_OWN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def _frame(fr):
    """A frame of an allocation stack: "file:line", or "function (file:line)"."""
    loc = "%s:%s" % (fr.get("file") or "?", fr.get("line", 0))
    return "%s (%s)" % (fr["function"], loc) if fr.get("function") else loc


def _and(xs):
    xs = [str(x) for x in xs]
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]


def find_binary(binary=None):
    """Returns the heapscope program to run: binary, else $HEAPSCOPE_BIN,
    else the copy a heapscope-agent wheel carries, else `heapscope` on
    PATH. Raises BinaryNotFound with what to do when there is none."""
    if binary:
        if not _executable(binary):
            raise BinaryNotFound("heapscope: binary=%r is not an executable file" % (binary,))
        return binary
    env = os.environ.get("HEAPSCOPE_BIN")
    if env:
        if not _executable(env):
            raise BinaryNotFound("heapscope: HEAPSCOPE_BIN=%s is not an executable file" % env)
        return env
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "heapscope")
    if _executable(bundled):
        return bundled
    found = shutil.which("heapscope")
    if found:
        return found
    raise BinaryNotFound(
        "heapscope: the leak check needs the heapscope program to analyse its snapshots, and found none: "
        "HEAPSCOPE_BIN is not set, this installation carries no copy (%s), and no heapscope is on PATH. "
        "Build it (go build -o /usr/local/bin/heapscope ./cmd/heapscope in heapscope's source tree) "
        "and put it on PATH, or set HEAPSCOPE_BIN=/path/to/heapscope, or install a heapscope-agent wheel "
        "built with the program in it (docs/harness.md)." % bundled)


def _executable(p):
    return os.path.isfile(p) and os.access(p, os.X_OK)


class LeakCheck:
    """Iterate over a LeakCheck to run a workload the right number of
    times; leaving the `with` block analyses the snapshots and raises
    LeakError when something leaks (unless raise_on_leak is false; the
    report is then in .report).

    directory: where the snapshots go (default: a new temporary
    directory). keep: None keeps them only when something leaks, True
    always, False never. config: a `heapscope check` config file
    (allowances, thresholds, suppressions). before_snapshot: called
    before each snapshot (the pytest plugin uses it to settle pytest's
    own buffers). trace_alloc=N: tracemalloc records N frames of every
    allocation from the start of the check to its end (unless it traces
    already), and failures say where the leaked objects were allocated;
    it makes the workload slower. counts=False takes the full snapshots
    from the start instead of deciding from counts first (the workload
    then runs warmup + 2 * iterations times whatever it does; with
    counts, warmup + iterations when nothing grew from A to B, warmup +
    2 * iterations when nothing grew twice, warmup + 4 * iterations when
    something did). watch: when the counts found classes that grew at
    every step, record where their instances are allocated until the
    end of the check (_watch: only those classes' allocations are
    slowed), so that a failure says where the leaked objects were made
    without trace_alloc; watch=False records nothing."""

    def __init__(self, iterations=50, warmup=5, binary=None, directory=None,
                 keep=None, config=None, raise_on_leak=True, before_snapshot=None, trace_alloc=0,
                 counts=True, watch=True):
        _check_counts(iterations, warmup)
        _check_frames(trace_alloc)
        self.trace_alloc = int(trace_alloc)
        self._traced = False
        self.iterations = int(iterations)
        self.warmup = int(warmup)
        self.binary = find_binary(binary)
        self.directory = os.fspath(directory) if directory is not None else None
        self.keep = keep
        self.config = os.fspath(config) if config is not None else None
        self.raise_on_leak = raise_on_leak
        self.before_snapshot = before_snapshot
        self.counts = bool(counts)
        self.watch = bool(watch)
        self._watched = []   # the classes this check watches (_watch)
        self.report = None
        self.runs = 0
        self._dir = None
        self._made_dir = False
        self._paths = []
        self._taken = 0
        self._quick = None   # {type: counts} when decided from the counts

    def __enter__(self):
        if self.directory:
            os.makedirs(self.directory, mode=0o700, exist_ok=True)
            self._dir = self.directory
        else:
            self._dir = tempfile.mkdtemp(prefix="heapscope-leakcheck-")
            self._made_dir = True
        # Made before the first count, so that the harness's own
        # bookkeeping does not grow between the counts and snapshots.
        self._paths = [os.path.join(self._dir, n) for n in _NAMES]
        self._runs_at = [0, 0, 0]
        if self.trace_alloc:
            import tracemalloc
            if not tracemalloc.is_tracing():
                tracemalloc.start(self.trace_alloc)
                self._traced = True
        return self

    def planned_runs(self):
        """How many times the workload runs: warmup + 2 * iterations, or,
        once the counts have sent it on to full snapshots, 2 more."""
        n = self.warmup + 2 * self.iterations
        return n + 2 * self.iterations if self.counts and self.runs > n else n

    def _snap(self, i):
        from . import snapshot
        if self.before_snapshot is not None:
            self.before_snapshot()
        if snapshot(self._paths[i], values=True) is None:
            raise RuntimeError("heapscope: could not write %s" % self._paths[i])
        self._runs_at[i] = self.runs
        self._taken = i + 1

    def _count(self):
        from . import _census
        if self.before_snapshot is not None:
            self.before_snapshot()
        _census.counts(True)

    def _grew(self, k):
        """{type: [count at A, B (, C)]} of the types that grew at all
        over the last k + 1 counts, and whether one grew at every step."""
        from . import _census
        got = _census.COUNTS[-(k + 1):]
        from ._introspect import type_name
        named = {}   # types that share a name (classes a factory makes) are summed
        for i, (n, types) in enumerate(got):
            for tid, c in n.items():
                row = named.get(type_name(types[tid]))
                if row is None:
                    row = named[type_name(types[tid])] = [0] * len(got)
                row[i] += c
        grew, every = {}, False
        for name, ns in named.items():
            steps = [x < y for x, y in zip(ns, ns[1:])]
            if any(steps):
                grew[name] = ns
                every = every or all(steps)
        return grew, every

    def _watch_grown(self, grew):
        """Records where the classes that grew at every step of grew
        (_grew's {name: counts}) are allocated, from now to the end of
        the check (unless tracemalloc gives every object's site
        already): the snapshots that follow then say where the leaked
        objects were made."""
        from . import _census, _sites, _watch
        from ._introspect import type_name
        if not self.watch or _sites.tracing():
            return
        names = {name for name, ns in grew.items() if all(x < y for x, y in zip(ns, ns[1:]))}
        classes = []
        # By identity (a metaclass may define __eq__); the program's own
        # watch is left as it is.
        seen = {id(t) for t in _watch.watched()}
        for t in _census.COUNTS[-1][1].values():
            if id(t) not in seen and type_name(t) in names and _watch.refusal(t) is None:
                seen.add(id(t))
                classes.append(t)
        del classes[_WATCH_MAX:]
        if classes:
            _watch.watch(classes, _WATCH_FRAMES)
            self._watched = classes

    def __iter__(self):
        for _ in range(self.warmup):
            self.runs += 1
            yield
        if self.counts:
            from . import _census
            del _census.COUNTS[:]
            # Counted at A, B and C from the same place in this loop, so
            # that the check's own state is the same at each count. When
            # no type grew from A to B, none can grow at both steps: C is
            # not needed.
            for k in range(3):
                if k:
                    for _ in range(self.iterations):
                        self.runs += 1
                        yield
                self._count()
                if k:
                    grew, every = self._grew(k)
                    if not every:
                        del _census.COUNTS[:]
                        self._quick = grew
                        return
            self._watch_grown(grew)
            del _census.COUNTS[:]
        self._snap(0)
        for _ in range(self.iterations):
            self.runs += 1
            yield
        self._snap(1)
        for _ in range(self.iterations):
            self.runs += 1
            yield
        self._snap(2)

    def analyse(self):
        if self._quick is not None:
            self.report = LeakReport({"verdicts": []}, [], counts=self._quick)
            return self.report
        if self._taken != 3:
            raise RuntimeError("the leak check did not run to its end (%d of 3 snapshots)" % self._taken)
        cmd = [self.binary, "check", "--scaling", "--json"]
        if self.config:
            cmd += ["--config", self.config]
        proc = subprocess.run(cmd + self._paths, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1) or not proc.stdout:
            raise RuntimeError("heapscope check failed (exit %d): %s" % (proc.returncode, proc.stderr.strip()))
        self.report = LeakReport(json.loads(proc.stdout), self._paths, self._runs_at)
        return self.report

    def __exit__(self, exc_type, exc, tb):
        keep = self.keep is True
        if self._traced:
            import tracemalloc
            tracemalloc.stop()
            self._traced = False
        if self._watched:
            from . import _watch
            _watch.unwatch(self._watched)
            self._watched = []
        try:
            if exc_type is not None:
                return False
            report = self.analyse()
            keep = self.keep is True or (self.keep is None and not report.ok)
            if not keep:
                report.snapshots = []   # removed below: do not point at them
            if not report.ok and self.raise_on_leak:
                raise LeakError(report)
            return False
        finally:
            if not keep:
                self._remove()

    def _remove(self):
        if self._made_dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            return
        for p in self._paths:
            try:
                os.remove(p)
            except OSError:
                pass
        try:
            os.rmdir(self._dir)   # only if nothing else is in it
        except OSError:
            pass


def _check_counts(iterations, warmup):
    for name, v, least in (("iterations", iterations, 1), ("warmup", warmup, 0)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError("%s must be an int, not %s" % (name, type(v).__name__))
        if v < least:
            raise ValueError("%s must be at least %d, not %d" % (name, least, v))


def _check_frames(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("trace_alloc must be an int (frames), not %s" % type(n).__name__)
    if not 0 <= n <= 65535:
        raise ValueError("trace_alloc must be from 0 (off) to 65535 frames, not %d" % n)


def _run(check, workload, args, kwargs):
    """Runs workload(*args, **kwargs) for every turn of check. A failure
    on a later run says so: fixtures, mocks and state a workload leaves
    behind are shared by the runs, so a body that asserts on what
    accumulates (mock.assert_called_once, len(caplog.records)) passes
    once and fails the second time. For a unittest.TestCase method, the
    cleanups a run registers (addCleanup, enterContext) run after it, as
    unittest runs them after a test; those of setUp stay for the later
    runs."""
    case = args[0] if args else getattr(workload, "__self__", None)
    cleanups = getattr(case, "_cleanups", None) if isinstance(case, unittest.TestCase) else None
    if not isinstance(cleanups, list):
        cleanups = None
    for _ in check:
        mark = len(cleanups) if cleanups is not None else 0
        try:
            workload(*args, **kwargs)
            while cleanups is not None and len(cleanups) > mark:
                fn, cargs, ckwargs = cleanups.pop()
                fn(*cargs, **ckwargs)
        except Exception as e:
            if check.runs > 1:
                _note(e, "heapscope: this failure happened on run %d of %d of the workload under the leak check; "
                         "the runs share their fixtures, mocks and other state, so a body that asserts on what "
                         "accumulates over runs (mock.assert_called_once, len(caplog.records)) fails from the "
                         "second run on" % (check.runs, check.planned_runs()))
            raise


def _note(e, text):
    if hasattr(e, "add_note"):
        e.add_note(text)
    else:   # before 3.11: the note goes where the traceback shows it
        try:
            e.args = e.args + (text,) if e.args else (text,)
        except Exception:
            pass


def find_leaks(workload, *args, iterations=50, warmup=5, binary=None, config=None, trace_alloc=0, **kwargs):
    """Runs workload(*args, **kwargs) warmup + 2 * iterations times and
    returns the LeakReport (use LeakCheck to choose where the snapshots
    go and whether they stay; trace_alloc as LeakCheck's)."""
    check = LeakCheck(iterations=iterations, warmup=warmup, binary=binary, config=config, raise_on_leak=False,
                      trace_alloc=trace_alloc)
    with check:
        _run(check, workload, args, kwargs)
    return check.report


def assert_no_leaks(workload, *args, iterations=50, warmup=5, binary=None, config=None, trace_alloc=0, **kwargs):
    """Like find_leaks, but raises LeakError when the workload leaks."""
    __tracebackhide__ = True   # pytest leaves this frame out of its tracebacks
    report = find_leaks(workload, *args, iterations=iterations, warmup=warmup, binary=binary, config=config,
                        trace_alloc=trace_alloc, **kwargs)
    if not report.ok:
        raise LeakError(report)
    return report


def no_leaks(func=None, *, iterations=50, warmup=5, config=None, binary=None, trace_alloc=0):
    """A decorator: the decorated function (a unittest.TestCase method, a
    pytest test, any function) runs warmup + 2 * iterations times under
    a leak check each time it is called, and raises LeakError when it
    leaks. Use it bare (@no_leaks) or with arguments
    (@no_leaks(iterations=20)). In a TestCase, setUp and tearDown run
    once around all the runs."""
    _check_counts(iterations, warmup)
    _check_frames(trace_alloc)

    def decorate(f):
        if not callable(f):
            raise TypeError("no_leaks decorates a function, not %s" % type(f).__name__)
        if inspect.iscoroutinefunction(f):
            raise TypeError("no_leaks cannot check %s: it is a coroutine function, and a leak check runs "
                            "its workload synchronously" % getattr(f, "__qualname__", f))

        @functools.wraps(f)
        def checked(*args, **kwargs):
            __tracebackhide__ = True
            assert_no_leaks(f, *args, iterations=iterations, warmup=warmup, config=config, binary=binary,
                            trace_alloc=trace_alloc, **kwargs)
        return checked

    if func is not None:
        if not callable(func):
            raise TypeError("no_leaks takes its arguments by name: @no_leaks(iterations=20, warmup=2)")
        return decorate(func)
    return decorate

