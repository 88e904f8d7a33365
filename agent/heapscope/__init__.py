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
import stat
import sys
import time

# Everything the capture runs is imported now, with the program's import:
# importing it during a capture would run the import system, and with it
# any import hook the program installed.
try:
    from . import _capture, _census
    from ._introspect import from_host as _from_host, type_name as _type_name
    _load_error = None
except (ImportError, SyntaxError, OSError) as e:
    _capture = _census = None
    _load_error = "%s: %s" % (type(e).__name__, e)

    def _from_host(e):
        return False

    def _type_name(t):
        return "error"

try:
    import resource as _resource   # the peak RSS where /proc is not
except ImportError:
    _resource = None

__all__ = ["snapshot"]
__version__ = "0.1.0"

_lock = _thread.allocate_lock()
_owner = [None]      # thread ident of the capture in progress


def snapshot(path, *, values=True, max_value_len=64, collect=True, edges=True):
    """Writes a heap snapshot to exactly path and returns path, or None if
    no file could be written (a one-line message then goes to stderr:
    a missing directory, a path that is a directory, a full disk). The
    file is readable by its owner only (0600).

    values: write a prefix of str/bytes and small numbers (VALUES section);
    values=False writes none of the program's data: no VALUES, no dict
    keys as edge names, no argv, no thread names (docs/security.md);
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
    mro = _TYPE_MRO(type(e))
    if any(c is KeyboardInterrupt or c is SystemExit for c in mro):
        raise e
    if _from_host(e):
        raise e


def _snapshot(path, values, max_value_len, collect, reason, block, edges=True):
    """block: wait for a capture another thread is taking (never for one
    this thread is taking: a signal handler that interrupts it). path may
    be a function, called once the capture is this thread's, that returns
    the path or None to take nothing (run mode numbers its files so, in
    the order they are taken)."""
    me = _thread.get_ident()
    if _owner[0] == me or not _lock.acquire(block):
        _stderr("heapscope: a snapshot is already being taken; %s skipped" % (
            "the %s snapshot" % reason if callable(path) else path))
        return None
    _owner[0] = me
    try:
        if callable(path):
            path = path()
            if path is None:
                return None
        return _take(path, bool(values), max_value_len, bool(collect), reason, edges)
    finally:
        _owner[0] = None
        _lock.release()


def _take(path, values, max_value_len, collect, reason, edges=True):
    if _load_error is not None:
        _stderr("heapscope: cannot load the agent: %s" % _load_error)
        return None
    # Anything raised here is the program's own (a signal handler's
    # exception, KeyboardInterrupt): it goes on to the program.
    try:
        max_value_len = int(max_value_len)
        if max_value_len < 0:
            max_value_len = 0
    except BaseException:
        max_value_len = 64
    try:
        if stat.S_ISDIR(os.stat(path).st_mode):
            _stderr("heapscope: cannot write %s: it is a directory" % path)
            return None
    except OSError:
        pass   # a missing file is the usual case; open reports the rest
    t0 = time.time()
    c0 = time.perf_counter()
    private = not values
    # `state` is made now, before gc.get_objects(), so it is an object of
    # the heap; it stays empty until after the capture has listed objects
    # (and untracked: gc.get_objects() does not list an empty dict). It
    # records the temporary file as soon as it exists; whatever ends the
    # capture, the finally below removes the file unless it became path.
    state = {}
    try:
        try:
            if edges:
                cap = _capture.capture(path, values, max_value_len, collect, state)
                w = cap.w
                warnings = cap.warnings
            else:
                values = False
                w, warnings = _census.census(path, collect, state, _capture.open_temp)
                cap = None
            meta = {
                "runtime": "python",
                "python_version": "%d.%d.%d" % sys.version_info[:3],
                "implementation": sys.implementation.name,
                "pid": os.getpid(),
                "time": t0,
                "executable": sys.executable if type(sys.executable) is str else "",
                "platform": sys.platform,
                "agent_version": __version__,
                "options": {"values": values, "max_value_len": max_value_len, "collect": collect, "edges": edges},
                "capture_seconds": round(time.perf_counter() - c0, 6),
                "reason": reason,
                "objects": w.nobjects,
                "edges": w.nedges,
            }
            if not private:
                argv = sys.argv if type(sys.argv) is list else []
                meta["argv"] = [a if type(a) is str else "?" for a in argv]
                argv = None
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
            state["f"].close()  # no fsync: the rename makes the file whole for readers
            del state["f"]
            os.replace(state["tmp"], path)
            del state["tmp"]
            return path
        finally:
            if state:
                _cleanup(state)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        if _from_host(e):
            raise  # the program's own signal handler raised it
        _stderr("heapscope: snapshot %s failed: %s" % (path, _describe(e)))
        return None


def _describe(e):
    """type: message for the interpreter's own exceptions, the type name
    for others (str() of an exception could run the program's code)."""
    try:
        t = type(e)
        name = _type_name(t)
        args = _EXC_ARGS(e)
        if not _TYPE_FLAGS(t) & _HEAPTYPE and type(args) is tuple and all(
                type(a) is str or type(a) is int for a in args):
            return "%s: %s" % (name, t.__str__(e))   # a builtin type's own __str__
        return name
    except BaseException:
        return "error"


_TYPE_MRO = type.__dict__["__mro__"].__get__
_EXC_ARGS = BaseException.__dict__["args"].__get__
_TYPE_FLAGS = type.__dict__["__flags__"].__get__
_HEAPTYPE = 1 << 9


def _cleanup(state):
    """Closes and removes the temporary file; an exception that must reach
    the program (see _reraise_host) is raised after the cleanup is done."""
    pending = []
    for key in ("f", "fd", "tmp"):
        # Each entry leaves state only once its step was tried.
        x = state.get(key)
        if x is None:
            continue
        try:
            if key == "f":
                x.close()
            elif key == "fd":
                os.close(x)
            else:
                os.unlink(x)
        except BaseException as e:
            pending.append(e)
        state.pop(key, None)
    for e in pending:
        _reraise_host(e)


def _rss():
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except BaseException as e:
        _reraise_host(e)
    if _resource is None:
        return 0
    try:
        r = _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss
        return r * 1024 if sys.platform != "darwin" else r
    except BaseException as e:
        _reraise_host(e)
        return 0
