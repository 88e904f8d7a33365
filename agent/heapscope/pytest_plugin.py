"""pytest support for heapscope's leak check (docs/harness.md).

Installed with `pip install ./agent` (or a heapscope-agent wheel), pytest
loads it by itself (the pytest11 entry point); without installing, load it
with `pytest -p heapscope.pytest_plugin`. Then:

    @pytest.mark.no_leaks(iterations=20, warmup=3)
    def test_handler():
        handle_request()          # the whole test body is the workload

    class TestHandler(unittest.TestCase):
        @pytest.mark.no_leaks(iterations=20)
        def test_handle(self):    # the method is the workload
            handle_request()

    def test_other(leak_check):
        leak_check(handle_request, iterations=20)

The body runs warmup + 2 * iterations times; fixtures (setUp and
tearDown for a TestCase) run once around all the runs. A leaking test
fails with the objects that leak, the memory they hold, the path that
holds them and where its snapshots are kept. What pytest's and
unittest's machinery records about the runs (caplog's records,
monkeypatch's undo list, the calls a mock remembers) is set aside, and
the report says so. Only this plugin registers the marker, so with
`--strict-markers` (or required_plugins = heapscope-agent) a run without
it fails instead of passing the marked tests unchecked.
"""

import contextlib
import difflib
import inspect
import io
import logging
import os
import re
import unittest

import pytest

from .leakcheck import BinaryNotFound, LeakCheck, LeakError, _run, format_failure

MARKER = "no_leaks"

# The marker's arguments, and how the failure message describes them.
_ARGS = {
    "iterations": "iterations=N (runs between snapshots, at least 1, default 50)",
    "warmup": "warmup=N (runs before the first snapshot, default 5)",
    "config": "config=PATH (a heapscope check config file, relative to the rootdir)",
    "trace_alloc": "trace_alloc=N (tracemalloc records N frames of each allocation during the check: "
                   "failures say where the leaked objects were allocated)",
}
_PLUGIN = "heapscope-leakchecks"


def pytest_addoption(parser):
    group = parser.getgroup("heapscope", "heapscope leak checks")
    group.addoption("--heapscope-dir", metavar="DIR", default=None,
                    help="keep the snapshots of leaking tests in DIR/<test id> "
                         "(default: a new temporary directory per leaking test)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "no_leaks(iterations=50, warmup=5, config=None, trace_alloc=0): run the test body warmup + 2 * iterations times "
        "and fail if objects pile up in proportion to the runs (heapscope leak check)")
    if not config.pluginmanager.has_plugin(_PLUGIN):
        config.pluginmanager.register(_LeakChecks(config), _PLUGIN)


class MarkerError(Exception):
    """A no_leaks marker with arguments it does not take."""


def marker_options(marker, rootpath=None):
    """Returns the checked keyword arguments of a no_leaks marker, or
    raises MarkerError naming what is wrong and what the marker takes."""
    problems = []
    if marker.args:
        problems.append("it takes no positional arguments (got %s)" % ", ".join(repr(a) for a in marker.args))
    opts = {}
    for k, v in marker.kwargs.items():
        if k not in _ARGS:
            close = difflib.get_close_matches(k, list(_ARGS), n=1)
            problems.append("unknown argument %r%s" % (k, " (did you mean %r?)" % close[0] if close else ""))
        elif k in ("iterations", "warmup", "trace_alloc"):
            least = 1 if k == "iterations" else 0
            if isinstance(v, bool) or not isinstance(v, int):
                problems.append("%s=%r is not an int" % (k, v))
            elif v < least:
                problems.append("%s=%r: it must be at least %d" % (k, v, least))
            else:
                opts[k] = v
        elif k == "config":
            if not isinstance(v, (str, os.PathLike)):
                problems.append("config=%r is not a path" % (v,))
                continue
            p = os.fspath(v)
            if rootpath is not None and not os.path.isabs(p):
                p = os.path.join(os.fspath(rootpath), p)
            if not os.path.isfile(p):
                problems.append("config=%r: no such file (%s)" % (v, p))
            else:
                opts[k] = p
    if problems:
        raise MarkerError("@pytest.mark.%s: %s. It takes only %s."
                          % (MARKER, "; ".join(problems), ", ".join(_ARGS.values())))
    return opts


def _settle_pytest_logs():
    """pytest's log capture writes each record into an io.StringIO, and
    CPython keeps a StringIO's pending lines in a list the garbage
    collector cannot see: a list of strings held outside the heap,
    growing with every run. Reading the stream's value merges them into
    the stream's own buffer. Only pytest's handlers are touched."""
    for h in list(logging.getLogger().handlers):
        if type(h).__module__.startswith("_pytest."):
            stream = getattr(h, "stream", None)
            if type(stream) is io.StringIO:
                stream.getvalue()


def _is_unittest(item):
    cls = getattr(item, "cls", None)
    return isinstance(cls, type) and issubclass(cls, unittest.TestCase)


class _LeakChecks:
    """Runs the marked tests under a leak check and keeps their reports
    for the terminal summary."""

    def __init__(self, config):
        self.config = config
        self.dir = config.getoption("heapscope_dir", None)
        self.reports = []   # (nodeid, LeakReport)

    def options(self, item):
        marker = item.get_closest_marker(MARKER)
        if marker is None:
            return None
        try:
            return marker_options(marker, getattr(self.config, "rootpath", None))
        except MarkerError as e:
            problem = str(e)
        pytest.fail(problem, pytrace=False)

    def check(self, item, func, args, kwargs, opts):
        """Runs func(*args, **kwargs) under a leak check; fails the test
        when it leaks."""
        if inspect.iscoroutinefunction(func):
            pytest.fail("heapscope cannot check %s: it is a coroutine function, and the leak check "
                        "runs its workload synchronously" % getattr(func, "__qualname__", item.name), pytrace=False)
        directory = None
        if self.dir:
            directory = os.path.join(self.dir, re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid).strip("_"))
        try:
            check = LeakCheck(iterations=opts.get("iterations", 50), warmup=opts.get("warmup", 5),
                              config=opts.get("config"), directory=directory, raise_on_leak=False,
                              before_snapshot=_settle_pytest_logs, trace_alloc=opts.get("trace_alloc", 0))
        except BinaryNotFound as e:
            missing = str(e)
        else:
            missing = None
        if missing:
            pytest.fail(missing, pytrace=False)
        with check:
            _run(check, func, args, kwargs)
        report = check.report
        self.reports.append((item.nodeid, report))
        if not report.ok:
            pytest.fail(format_failure(report, item.name), pytrace=False)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        opts = self.options(pyfuncitem)
        if opts is None:
            yield
            return
        with self._checked(pyfuncitem, opts):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        # pytest runs a unittest.TestCase method through unittest, which
        # calls item.obj (the bound method) between setUp and tearDown,
        # without pytest_pyfunc_call.
        marked = item.get_closest_marker(MARKER) is not None
        if not marked or (isinstance(item, pytest.Function) and not _is_unittest(item)):
            yield
            return
        if not isinstance(item, pytest.Function):
            pytest.fail("@pytest.mark.%s applies to test functions and unittest.TestCase methods, not to %s"
                        % (MARKER, type(item).__name__), pytrace=False)
        with self._checked(item, self.options(item)):
            yield

    @contextlib.contextmanager
    def _checked(self, item, opts):
        """Makes item.obj, while it lasts, run the test under the check."""
        test = item.obj

        def checked(**kwargs):   # pytest passes the test's arguments; unittest none
            self.check(item, test, (), kwargs, opts)

        item.obj = checked
        try:
            yield
        finally:
            item.obj = test

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        # A LeakError (from the no_leaks decorator or assert_no_leaks)
        # says all there is to say: show it without the harness's frames.
        outcome = yield
        rep = outcome.get_result()
        if rep.failed and call.excinfo is not None and isinstance(call.excinfo.value, LeakError):
            rep.longrepr = format_failure(call.excinfo.value.report, item.name)

    def pytest_terminal_summary(self, terminalreporter):
        if not self.reports:
            return
        tr = terminalreporter
        leaked = sum(1 for _, r in self.reports if not r.ok)
        tr.write_sep("-", "heapscope leak checks")
        tr.write_line("%d test%s checked for leaks, %d leaked" % (
            len(self.reports), "" if len(self.reports) == 1 else "s", leaked))
        rules = {}
        for _, r in self.reports:
            for s in r.set_aside:
                rules.setdefault(s["rule"], [0, set()])
                rules[s["rule"]][0] += s["count"]
                rules[s["rule"]][1].add(id(r))
        if rules:
            parts = ["%d object%s (%s) in %d test%s" % (n, "" if n == 1 else "s", rule, len(t), "" if len(t) == 1 else "s")
                     for rule, (n, t) in sorted(rules.items(), key=lambda kv: -kv[1][0])]
            tr.write_line("set aside as not the tests' leaks: " + "; ".join(parts)
                          + ("" if tr.verbosity > 0 else " (-v lists them per test)"))
            if tr.verbosity > 0:
                for nodeid, r in self.reports:
                    if r.set_aside:
                        tr.write_line(nodeid)
                        for line in r.set_aside_lines():
                            tr.write_line("  " + line)


@pytest.fixture
def leak_check(request):
    """A function: leak_check(workload, *args, iterations=50, warmup=5,
    config=None, trace_alloc=0, **kwargs) runs workload(*args, **kwargs)
    under a leak check and fails the test when it leaks."""
    plugin = request.config.pluginmanager.get_plugin(_PLUGIN)

    def check(workload, *args, iterations=50, warmup=5, config=None, trace_alloc=0, **kwargs):
        opts = {"iterations": iterations, "warmup": warmup, "config": config, "trace_alloc": trace_alloc}
        plugin.check(request.node, workload, args, kwargs, opts)
    return check
