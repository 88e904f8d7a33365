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
import gc
import json
import os
import stat
import sys
import time

# Everything the capture runs is imported now, with the program's import:
# importing it during a capture would run the import system, and with it
# any import hook the program installed.
try:
    from . import _capture, _census, _fork, _watch
    from ._introspect import from_host as _from_host, type_name as _type_name, FRAMES as _FRAMES
    _load_error = None
except (ImportError, SyntaxError, OSError) as e:
    _capture = _census = _fork = _watch = None
    _load_error = "%s: %s" % (type(e).__name__, e)

    def _from_host(e):
        return False

    def _type_name(t):
        return "error"

try:
    import resource as _resource   # the peak RSS where /proc is not
except ImportError:
    _resource = None

__all__ = ["snapshot", "growth", "watch", "unwatch"]
__version__ = "0.1.0"

_lock = _thread.allocate_lock()
_owner = [None]      # thread ident of the capture in progress


def snapshot(path, *, values=True, max_value_len=64, collect=None, edges=True, fork=False):
    """Writes a heap snapshot to exactly path and returns path, or None if
    no file could be written (a one-line message then goes to stderr:
    a missing directory, a path that is a directory, a full disk). The
    file is readable by its owner only (0600).

    values: write a prefix of str/bytes and small numbers (VALUES section);
    values=False writes none of the program's data: no VALUES, no dict
    keys as edge names, no argv, no thread names (docs/security.md);
    max_value_len: the prefix length; collect: run gc.collect() first
    (the default, except with fork=True).
    edges=False takes a census instead: every object's type and size, no
    references, reference counts or values, several times faster; enough
    for `heapscope summary`, `diff` and `trend`, not for `top` or `why`.
    fork=True (Linux): a child process takes the snapshot of its copy of
    the heap, as it was at the fork, and the program stops only for the
    fork; the call returns path as soon as the child is started, and the
    file appears there, whole, when the child is done (a failure is then
    reported on stderr). It does not collect garbage unless collect=True
    (which stops the program for the collection), and refuses, with a
    message, when memory is too short for the child's copy of the heap
    (docs/security.md says what a fork capture costs).
    Problems that do not stop the capture become warnings in the file.
    """
    try:
        p = "".join(("", os.fspath(path)))  # our own copy: `path` is the host's
    except BaseException as e:
        _stderr("heapscope: bad snapshot path: %s" % _describe(e))
        return None
    del path
    fork = bool(fork)
    collect = (not fork) if collect is None else bool(collect)
    return _snapshot(p, values, max_value_len, collect, "api", True, bool(edges), fork)


# growth(): the highest number of objects of each type seen by a call so
# far, and their bytes then. The agent's own, so no count includes it.
_PEAKS = {}


def growth(limit=10, file=None, collect=True, watch=False):
    """Prints which types have more objects than at any earlier call (at
    the first call: every type), most new objects first, and returns them
    as [(type, objects, new objects, bytes, new bytes)]: objects and bytes
    now, and how many more than the peak an earlier call saw. limit: at
    most so many rows (None: all); file: where to print (None:
    sys.stdout; False: nowhere). collect: gc.collect() first.

    It counts every object a census counts (the gc-tracked ones and the
    untracked ones they refer to: str, int, float, tuples and dicts of
    those), with its shallow size, in memory: no file is written. The
    output has a line per type: name, objects, new objects, bytes, new
    bytes.

    watch=True also watches (see watch()) the classes that grew past
    the peak an earlier call saw (not at the first call, which has
    nothing to compare with), the 64 with the most new objects, with 16
    frames: a snapshot taken later says where their instances made
    since were allocated."""
    if _load_error is not None:
        _stderr("heapscope: cannot load the agent: %s" % _load_error)
        return []
    me = _thread.get_ident()
    if _owner[0] == me or not _lock.acquire(True):
        _stderr("heapscope: a snapshot is already being taken; growth skipped")
        return []
    _owner[0] = me
    classes = {} if watch else None
    try:
        counts, _ = _census.tally(bool(collect), classes)
    finally:
        _owner[0] = None
        _lock.release()
    rows = []
    grown = []
    earlier = bool(_PEAKS)   # a type an earlier call did not see had 0 objects then
    for name, (n, b) in counts.items():
        peak = _PEAKS.get(name, (0, 0))
        if n > peak[0] and watch and earlier:
            grown.extend((n - peak[0], t) for t in classes.get(name, ()) if _watch.refusal(t) is None)
        if n > peak[0]:
            rows.append((name, n, n - peak[0], b, b - peak[1]))
            _PEAKS[name] = (n, b)
    classes = None
    if grown:
        grown.sort(key=lambda x: -x[0])
        _watch.watch([t for _, t in grown[:64]], 16)
    rows.sort(key=lambda r: (-r[2], r[0]))
    if limit is not None:
        rows = rows[:limit]
    if file is not False and rows:
        out = sys.stdout if file is None else file
        width = max(len(r[0]) for r in rows)
        out.write("".join("%-*s %10d %+10d %14d %+14d\n" % ((width,) + r) for r in rows))
    return rows


def watch(*types, frames=8):
    """Records where the instances of the given classes are allocated
    from now on, with up to frames calling frames each (function, file
    and line), until unwatch(): later snapshots give each instance made
    since its site, which leaks, why, top and check then name. Only
    these classes' allocations are slowed (1.2-3 us each); the rest
    of the program runs as fast as before, unlike under tracemalloc.

    Python classes can be watched, on object, int, float, complex or an
    exception; built-in classes, classes a C extension makes, and
    subclasses of dict, list, tuple, set or str cannot. Returns
    [(class, reason)] of those given that are not watched (a line on
    stderr says so too). A watched class stays alive until unwatch()."""
    if _load_error is not None:
        _stderr("heapscope: cannot load the agent: %s" % _load_error)
        return [(t, "the agent is not loaded") for t in types]
    refused = _watch.watch(types, frames)
    for t, why in refused:
        what = _type_name(t) if issubclass(type(t), type) else "an object of type %s" % _type_name(type(t))
        _stderr("heapscope: allocation sites of %s are not recorded: %s" % (what, why))
    return refused


def unwatch(*types):
    """Stops recording the allocation sites of the given classes (none
    given: of every class; see watch()), and forgets those recorded."""
    if _watch is not None:
        _watch.unwatch(types or None)


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


def _snapshot(path, values, max_value_len, collect, reason, block, edges=True, fork=False, on_done=None,
              on_counts=None):
    """block: wait for a capture another thread is taking (never for one
    this thread is taking: a signal handler that interrupts it), and, for
    a fork capture, for a child to end when as many as _fork.MAX_CHILDREN
    run. path may be a function of reason, called once the capture is
    this thread's, that returns the path or None to take nothing (run
    mode numbers its files so, in the order they are taken). fork: take
    it in a child process (see snapshot); on_done(ok, messages), if
    given, is called on an agent thread when that child has ended
    (instead of reporting a failure on stderr). on_counts(time, counts),
    if given, is called once a full snapshot is written with its
    {id(class): instances} for the classes made at run time (see
    Capture.class_counts) and the time.time() it was taken at: after the
    capture, or on the fork capture's agent thread when its child has
    ended well (so the calls may come out of order)."""
    me = _thread.get_ident()
    if _owner[0] == me or not _lock.acquire(block):
        _stderr("heapscope: a snapshot is already being taken; %s skipped" % (
            "the %s snapshot" % reason if callable(path) else path))
        return None
    _owner[0] = me
    try:
        if fork and _fork is not None and len(_fork._children) >= _fork.MAX_CHILDREN:
            # Children of earlier fork captures are still walking their
            # copies of the heap: a snapshot that must not wait (a
            # signal's) is skipped, another waits for one to end.
            if not block:
                _stderr("heapscope: %d snapshots are still being written by child processes; %s skipped" % (
                    len(_fork._children), "the %s snapshot" % reason if callable(path) else path))
                return None
            _fork.wait_below(_fork.MAX_CHILDREN)
        if callable(path):
            path = path(reason)
            if path is None:
                return None
        return _take(path, bool(values), max_value_len, bool(collect), reason, edges, fork, on_done, on_counts)
    finally:
        _owner[0] = None
        _lock.release()


def _take(path, values, max_value_len, collect, reason, edges=True, fork=False, on_done=None, on_counts=None):
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
    if fork:
        return _take_fork(path, values, max_value_len, collect, reason, edges, on_done,
                          on_counts if edges else None)
    t0 = time.time()
    c0 = time.perf_counter()
    # `state` is made now, before gc.get_objects(), so it is an object of
    # the heap; it stays empty until after the capture has listed objects
    # (and untracked: gc.get_objects() does not list an empty dict). It
    # records the temporary file as soon as it exists; whatever ends the
    # capture, the finally below removes the file unless it became path.
    state = {}
    try:
        try:
            w, warnings, counts = _walk(path, values, max_value_len, collect, edges, state, _capture.open_temp,
                                        on_counts is not None)
            _finish(w, warnings, _meta(t0, c0, values, max_value_len, collect, edges, reason, w,
                                       os.getpid(), _rss()))
            w = None
            state["f"].close()  # no fsync: the rename makes the file whole for readers
            del state["f"]
            os.replace(state["tmp"], path)
            del state["tmp"]
            if counts is not None:
                on_counts(t0, counts)
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


def _walk(path, values, max_value_len, collect, edges, state, opener, counts=False):
    """Walks the heap into a temporary file opened with opener(path,
    state); returns (writer, warnings, class counts) before META, WARNINGS
    and END. The class counts (Capture.class_counts) are given when
    counts is true and edges too, else None."""
    if edges:
        cap = _capture.capture(path, values, max_value_len, collect, state, opener)
        return cap.w, cap.warnings, cap.class_counts() if counts else None
    w, warnings = _census.census(path, collect, state, opener)
    return w, warnings, None


def _meta(t0, c0, values, max_value_len, collect, edges, reason, w, pid, rss, fork=None):
    """The META section's object. fork: how long the fork took, for a
    capture in a child process."""
    values = values and edges
    meta = {
        "runtime": "python",
        "python_version": "%d.%d.%d" % sys.version_info[:3],
        "implementation": sys.implementation.name,
        "pid": pid,
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
    if fork is not None:
        meta["fork_seconds"] = round(fork, 6)
        meta["options"]["fork"] = True
    if values:
        argv = sys.argv if type(sys.argv) is list else []
        meta["argv"] = [a if type(a) is str else "?" for a in argv]
        argv = None
    if not edges:
        meta["census"] = True
    if rss:
        meta["rss_bytes"] = rss
    return meta


def _finish(w, warnings, meta):
    """Writes META, WARNINGS and END."""
    w.section(1, 0, [json.dumps(meta, ensure_ascii=False).encode("utf-8", "backslashreplace")])
    if warnings:
        w.blobs(7, [m.encode("utf-8", "backslashreplace") for m in warnings])
    w.end()


def _take_fork(path, values, max_value_len, collect, reason, edges, on_done, on_counts=None):
    """Starts a fork capture (see _fork) and returns path, or None when
    it cannot (said on stderr). The child writes the snapshot to a
    temporary file the program made and renames it to path; when it has
    ended, on_done(ok, messages) is called on the agent's thread, or a
    failure is reported on stderr. An exception of the program's (a
    signal handler's) that came while the program waited for the fork
    is raised once the child has the capture in hand. on_counts: see
    _snapshot; the child sends the counts on its status pipe."""
    why = _fork.UNAVAILABLE
    if why is None:
        why = _fork.memory_check(_fork.rss_anon(), not edges, len(_fork._children))
    if why is not None:
        _stderr("heapscope: no snapshot %s: %s; without fork the capture stops the program for the walk "
                "instead (fork=False, or --fork=false)" % (path, why))
        return None
    if collect:
        gc.collect()
    state = {}   # only strs and ints: untracked, so not listed in the child
    try:
        fd = _capture.open_temp_fd(path, state)
    except (KeyboardInterrupt, SystemExit):
        _cleanup(state)
        raise
    except BaseException as e:
        _cleanup(state)
        if _from_host(e):
            raise
        _stderr("heapscope: snapshot %s failed: %s" % (path, _describe(e)))
        return None
    tmp = state.pop("tmp")
    del state["fd"]
    _fork.JOB.update(path=path, tmp=tmp, fd=fd, values=values, max_value_len=max_value_len, edges=edges,
                     collect=collect, reason=reason, pid=os.getpid(), time=time.time(), rss=_rss(),
                     counts=on_counts is not None)

    try:
        raised = _fork.spawn(_fork_child, _when_ended(path, tmp, on_done, on_counts, _fork.JOB["time"]))[2]
    except BaseException as e:
        _fork.JOB.clear()
        _ended.pop(path, None)
        try:
            os.close(fd)
            os.unlink(tmp)
        except OSError:
            pass
        if _from_host(e):
            raise
        _stderr("heapscope: no snapshot %s: cannot fork: %s" % (path, _describe(e) if not isinstance(e, RuntimeError) else e))
        return None
    os.close(fd)
    if raised is not None:
        # The program's own (a signal handler's, KeyboardInterrupt),
        # held while it waited for the fork: the child takes the
        # snapshot, and the program gets its exception.
        raise raised
    return path


# The functions _when_ended made for the fork captures whose children
# have not ended, by path. Held here, where the agent finds them as its
# own (see _own.py): held only by the agent's running frames, which the
# snapshot does not list, each was in the child's snapshot, held from
# outside the heap (function heapscope._when_ended.<locals>.ended, a
# finding on every rank of a run under mpirun).
_ended = {}


def _when_ended(path, tmp, on_done, on_counts=None, t=0.0):
    """What runs when a fork capture's child has ended: removes the
    temporary file it left if it failed, passes the class counts it sent
    to on_counts (with t, the time of the fork), and calls on_done or
    reports the failure. (A function of its own: the cells of the
    closure must not be the caller's, whose frame the child still
    has.)"""
    def ended(ok, messages):
        _ended.pop(path, None)
        counts = [m for m in messages if m.startswith(_COUNTS_LINE)]
        if counts:
            messages = [m for m in messages if not m.startswith(_COUNTS_LINE)]
            if ok and on_counts is not None:
                try:
                    on_counts(t, _parse_counts(counts[-1]))
                except ValueError:
                    pass   # not the child's (nothing else writes the pipe)
        if not ok:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if on_done is not None:
            on_done(ok, messages)
        elif not ok:
            _stderr("heapscope: snapshot %s failed: %s" % (path, "; ".join(messages) or "no reason given"))
    _ended[path] = ended
    return ended


def _fork_child(status_fd, t_fork):
    """The child of a fork capture (see _fork): walks its copy of the
    heap into the file the program opened, renames it into place, writes
    "ok" on the status pipe and exits; on failure it writes why. It reads
    what it needs from _fork.JOB as it goes and keeps no reference to
    what JOB holds, which the walk then knows for the agent's own. It
    never returns."""
    c0 = time.perf_counter()
    fork = c0 - t_fork
    code = 1
    _fork.JOB["status"] = status_fd
    globals()["_stderr"] = _child_message
    try:
        _FRAMES[0] = _fork.JOB["frames"]
        w, warnings, counts = _walk(_fork.JOB["path"], _fork.JOB["values"], _fork.JOB["max_value_len"], False,
                                    _fork.JOB["edges"], {}, _fork_opener, _fork.JOB["counts"])
        _finish(w, warnings, _meta(_fork.JOB["time"], c0, _fork.JOB["values"], _fork.JOB["max_value_len"],
                                   _fork.JOB["collect"], _fork.JOB["edges"], _fork.JOB["reason"], w,
                                   _fork.JOB["pid"], _fork.JOB["rss"], fork))
        w = None
        _fork.JOB["file"].close()   # no fsync: the rename makes the file whole for readers
        os.replace(_fork.JOB["tmp"], _fork.JOB["path"])
        if counts is not None:
            _child_message(_COUNTS_LINE + " ".join("%x:%x" % kv for kv in counts.items()))
        _child_message("ok")
        code = 0
    except BaseException as e:
        _child_message("snapshot %s failed: %s" % (_fork.JOB["path"], _describe(e)))
    finally:
        os._exit(code)


# How a fork capture's child sends its class counts (see _snapshot's
# on_counts): one line on its status pipe, "classes " then id:count pairs
# in hex.
_COUNTS_LINE = "classes "


def _parse_counts(line):
    """{id: count} from a _COUNTS_LINE line; ValueError if it is not one."""
    out = {}
    for pair in line[len(_COUNTS_LINE):].split():
        k, _, v = pair.partition(":")
        out[int(k, 16)] = int(v, 16)
    return out


def _fork_opener(path, state):
    f = _fork.JOB["file"] = _capture._io_open(_fork.JOB["fd"], "wb", buffering=1 << 20)
    return f


def _child_message(msg):
    """In a fork capture's child: a line on the status pipe."""
    try:
        os.write(_fork.JOB["status"], (msg.replace("\n", " ") + "\n").encode("utf-8", "backslashreplace"))
    except BaseException:
        pass


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
