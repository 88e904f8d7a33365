"""heapscope: a live-heap snapshot agent for CPython (standard library only).

    import heapscope
    heapscope.snapshot("/tmp/app.pysnap")

snapshot() walks every object reachable from the garbage collector's
objects and from the roots (modules, thread stacks, builtins, sys), and
writes a .pysnap file (docs/pysnap-format.md) that `heapscope` (the Go
tool) analyses. It never runs code of the program's classes, never raises
into the program, and writes atomically.
"""

import _thread
import json
import os
import sys
import time

__all__ = ["snapshot"]
__version__ = "0.1.0"

_lock = _thread.allocate_lock()
_owner = [None]      # thread ident of the capture in progress


def snapshot(path, *, values=True, max_value_len=64, collect=True, edges=True):
    """Writes a heap snapshot to exactly path and returns path, or None if
    no file could be written (a one-line message then goes to stderr).

    values: write a prefix of str/bytes and small numbers (VALUES section);
    max_value_len: the prefix length; collect: run gc.collect() first.
    edges=False takes a census instead: every object's type and size, no
    references, reference counts or values, several times faster; enough
    for `heapscope summary`, `diff` and `trend`, not for `top` or `why`.
    Problems that do not stop the capture become warnings in the file.
    """
    try:
        p = "".join(("", os.fspath(path)))  # our own copy: `path` is the host's
    except BaseException as e:
        _stderr("heapscope: bad snapshot path: %s" % _describe(e))
        return None
    del path
    return _snapshot(p, values, max_value_len, collect, "api", True, bool(edges))


def _stderr(msg):
    # os.write on fd 2, not sys.stderr: the program may have replaced
    # sys.stderr with an object of its own.
    try:
        os.write(2, (msg + "\n").encode("utf-8", "backslashreplace"))
    except BaseException as e:
        _reraise_host(e)


def _reraise_host(e):
    """Re-raises e if it belongs to the program: KeyboardInterrupt,
    SystemExit, or an exception its own code (a signal handler that ran
    while the agent worked) raised; see _capture.from_host."""
    mro = type.__dict__["__mro__"].__get__(type(e))
    if any(c is KeyboardInterrupt or c is SystemExit for c in mro):
        raise e
    c = sys.modules.get(__name__ + "._capture")
    if c is not None and c.from_host(e):
        raise e


def _snapshot(path, values, max_value_len, collect, reason, block, edges=True):
    """block: wait for a capture another thread is taking (never for one
    this thread is taking: a signal handler that interrupts it)."""
    me = _thread.get_ident()
    if _owner[0] == me or not _lock.acquire(block):
        _stderr("heapscope: a snapshot is already being taken; %s skipped" % path)
        return None
    _owner[0] = me
    try:
        return _take(path, bool(values), max_value_len, bool(collect), reason, edges)
    finally:
        _owner[0] = None
        _lock.release()


def _take(path, values, max_value_len, collect, reason, edges=True):
    try:
        from . import _capture
    except (ImportError, SyntaxError, OSError) as e:
        _stderr("heapscope: cannot load the agent: %s" % _describe(e))
        return None
    # Anything else raised here is the program's own (a signal handler's
    # exception, KeyboardInterrupt): it goes on to the program.
    try:
        max_value_len = int(max_value_len)
        if max_value_len < 0:
            max_value_len = 0
    except BaseException:
        max_value_len = 64
    t0 = time.time()
    c0 = time.perf_counter()
    # `state` is made now, before gc.get_objects(), so it is an object of
    # the heap; it stays empty until after the capture has listed objects
    # (and untracked: gc.get_objects() does not list an empty dict).
    state = {}
    try:
        try:
            if edges:
                cap = _capture.capture(path, values, max_value_len, collect, state)
                w = cap.w
                warnings = cap.warnings
            else:
                from . import _census
                values = False
                w, warnings = _census.census(path, collect, state, _capture.open_temp)
                cap = None
            meta = {
                "runtime": "python",
                "python_version": "%d.%d.%d" % sys.version_info[:3],
                "implementation": sys.implementation.name,
                "pid": os.getpid(),
                "time": t0,
                "argv": [a if type(a) is str else "?" for a in (sys.argv if type(sys.argv) is list else [])],
                "executable": sys.executable if type(sys.executable) is str else "",
                "platform": sys.platform,
                "agent_version": __version__,
                "options": {"values": values, "max_value_len": max_value_len, "collect": collect, "edges": edges},
                "capture_seconds": round(time.perf_counter() - c0, 6),
                "reason": reason,
                "objects": w.nobjects,
                "edges": w.nedges,
            }
            if not edges:
                meta["census"] = True
            rss = _rss()
            if rss:
                meta["rss_bytes"] = rss
            cap = None
            w.section(1, 0, [json.dumps(meta, ensure_ascii=False).encode("utf-8", "backslashreplace")])
            if warnings:
                w.blobs(7, [m.encode("utf-8", "backslashreplace") for m in warnings])
            w.end()
            f = state.pop("f")
            f.close()  # no fsync: the rename makes the file whole for readers
            os.replace(state.pop("tmp"), path)
            return path
        except (KeyboardInterrupt, SystemExit):
            _cleanup(state)
            raise
        except BaseException as e:
            _cleanup(state)
            if _capture.from_host(e):
                raise  # the program's own signal handler raised it
            _stderr("heapscope: snapshot %s failed: %s" % (path, _describe(e)))
            return None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        if _capture.from_host(e):
            raise
        return None


def _describe(e):
    """type: message for the interpreter's own exceptions, the type name
    for others (str() of an exception could run the program's code)."""
    t = type(e)
    try:
        name = type.__dict__["__name__"].__get__(t)
        if type.__dict__["__module__"].__get__(t) == "builtins" and type(e.args) is tuple:
            return "%s: %s" % (name, BaseException.__str__(e))
        return name
    except BaseException:
        return "error"


def _cleanup(state):
    """Closes and removes the temporary file; an exception that must reach
    the program (see _reraise_host) is raised after the cleanup is done."""
    pending = []
    for key, fn in (("f", lambda f: f.close()), ("fd", os.close), ("tmp", os.unlink)):
        x = state.pop(key, None)
        if x is None:
            continue
        try:
            fn(x)
        except BaseException as e:
            pending.append(e)
    for e in pending:
        _reraise_host(e)


def _rss():
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except BaseException as e:
        _reraise_host(e)
    try:
        import resource
        r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return r * 1024 if sys.platform != "darwin" else r
    except BaseException as e:
        _reraise_host(e)
        return 0
