"""`heapscope run` support: snapshots at exit, on a signal and at an
interval, configured by environment variables (see agent/doc.go):

    HEAPSCOPE_OUT=DIR          activate; snapshots go to DIR as NNNN-PID-REASON.pysnap
    HEAPSCOPE_AT_EXIT=1        a snapshot when the interpreter exits (atexit), and
                               when SIGTERM or SIGHUP would end it unhandled
    HEAPSCOPE_SIGNAL=SIGUSR2   a snapshot when the process receives the signal
    HEAPSCOPE_EVERY=SECONDS    a snapshot every SECONDS (a float) from a daemon thread
    HEAPSCOPE_VALUES=0         no value prefixes in the snapshots
    HEAPSCOPE_MAX_VALUE_LEN=N  value prefix length (64)
    HEAPSCOPE_COLLECT=0        no gc.collect() before each snapshot
    HEAPSCOPE_EDGES=0          censuses (types and sizes only) instead of full snapshots
    HEAPSCOPE_CHILDREN=1       child processes (that run Python) take snapshots too
    HEAPSCOPE_FORK=1           signal and interval snapshots are taken by a child process
                               that walks a copy of the heap (Linux; see _fork): the
                               program stops only for the fork; the exit snapshot is not
    HEAPSCOPE_WATCH_GROWTH=1   record where the instances of the classes that grew in
                               both intervals between the last three full snapshots are
                               allocated, from then on (see note_counts and _watch)

Without HEAPSCOPE_CHILDREN=1 the agent removes its variables (and restores
PYTHONPATH from HEAPSCOPE_ORIG_PYTHONPATH) from os.environ once it is
installed, so child processes run without it.
"""

import _thread
import atexit
import os
import sys
import time

from . import _describe, _from_host, _snapshot, _stderr, _fork

_ENV_KEYS = ("HEAPSCOPE_OUT", "HEAPSCOPE_AT_EXIT", "HEAPSCOPE_SIGNAL", "HEAPSCOPE_EVERY",
             "HEAPSCOPE_VALUES", "HEAPSCOPE_MAX_VALUE_LEN", "HEAPSCOPE_COLLECT", "HEAPSCOPE_EDGES",
             "HEAPSCOPE_CHILDREN", "HEAPSCOPE_AGENT_DIR", "HEAPSCOPE_ORIG_PYTHONPATH",
             "HEAPSCOPE_TRACE_ALLOC", "HEAPSCOPE_ORIG_PYTHONTRACEMALLOC", "HEAPSCOPE_FORK",
             "HEAPSCOPE_WATCH_GROWTH")

_cfg = {"out": None, "pid": 0, "n": 0, "stop": False, "children": False,
        "values": True, "max_value_len": 64, "collect": True, "edges": True, "installed": False,
        "exit_taken": False, "fork": False, "watch": False}
_count_lock = _thread.allocate_lock()


def _flag(v, default):
    if v is None or v == "":
        return default
    return v.strip().lower() not in ("0", "false", "no", "off")


def install_from_env(env=None):
    """Installs the hooks the environment asks for. Returns True when
    HEAPSCOPE_OUT is set and the hooks are in place."""
    env = os.environ if env is None else env
    out = env.get("HEAPSCOPE_OUT")
    if not out:
        return False
    try:
        every = float(env.get("HEAPSCOPE_EVERY") or 0)
    except ValueError:
        _stderr("heapscope: bad HEAPSCOPE_EVERY=%r; no interval snapshots" % env.get("HEAPSCOPE_EVERY"))
        every = 0
    try:
        mvl = int(env.get("HEAPSCOPE_MAX_VALUE_LEN") or 64)
    except ValueError:
        mvl = 64
    ok = install(out,
                 at_exit=_flag(env.get("HEAPSCOPE_AT_EXIT"), False),
                 signal_name=env.get("HEAPSCOPE_SIGNAL") or "",
                 every=every,
                 children=_flag(env.get("HEAPSCOPE_CHILDREN"), False),
                 values=_flag(env.get("HEAPSCOPE_VALUES"), True),
                 max_value_len=mvl,
                 collect=_flag(env.get("HEAPSCOPE_COLLECT"), True),
                 edges=_flag(env.get("HEAPSCOPE_EDGES"), True),
                 fork=_flag(env.get("HEAPSCOPE_FORK"), False),
                 watch=_flag(env.get("HEAPSCOPE_WATCH_GROWTH"), False))
    if not _cfg["children"] and env is os.environ:
        _scrub_environ()
    return ok


def _scrub_environ():
    env = os.environ
    orig = env.get("HEAPSCOPE_ORIG_PYTHONPATH")
    try:
        if orig is not None:
            env["PYTHONPATH"] = orig
        elif "PYTHONPATH" in env:
            del env["PYTHONPATH"]
        if "HEAPSCOPE_TRACE_ALLOC" in env:
            # run --trace-alloc set PYTHONTRACEMALLOC for this program only.
            orig = env.get("HEAPSCOPE_ORIG_PYTHONTRACEMALLOC")
            if orig is not None:
                env["PYTHONTRACEMALLOC"] = orig
            elif "PYTHONTRACEMALLOC" in env:
                del env["PYTHONTRACEMALLOC"]
        for k in _ENV_KEYS:
            if k in env:
                del env[k]
    except Exception:
        pass


def install(out, at_exit=True, signal_name="", every=0.0, children=False,
            values=True, max_value_len=64, collect=True, edges=True, fork=False, watch=False):
    if _cfg["installed"]:
        return True
    try:
        # Readable by the user only, as the snapshots in it are (if it
        # exists already, it is left as it is).
        os.makedirs(out, mode=0o700, exist_ok=True)
    except OSError as e:
        _stderr("heapscope: cannot create %s: %s" % (out, e))
        return False
    _cfg.update(out=os.path.abspath(out), pid=os.getpid(), children=children, values=values,
                max_value_len=max_value_len, collect=collect, edges=edges, installed=True, fork=bool(fork),
                watch=bool(watch) and edges)
    atexit.register(_at_exit, at_exit)
    if signal_name:
        _install_signal(signal_name)
    if at_exit:
        _install_fatal(signal_name)
    if every and every > 0:
        _thread.start_new_thread(_loop, (float(every),))
    return True


def _install_signal(name):
    import signal
    n = name.strip().upper()
    signum = None
    if n.isdigit():
        signum = int(n)
    else:
        if not n.startswith("SIG"):
            n = "SIG" + n
        signum = getattr(signal, n, None)
    if not isinstance(signum, int):
        _stderr("heapscope: unknown signal %r; no signal snapshots" % name)
        return
    try:
        prev = signal.getsignal(signum)
    except (ValueError, OSError):
        prev = None
    _prev_handlers[signum] = prev
    try:
        signal.signal(signum, _on_signal)
    except (ValueError, OSError) as e:
        _stderr("heapscope: cannot handle %s: %s" % (name, e))


# The handlers that were in place when _install_signal installed its own,
# by signal number, which _on_signal calls after its snapshot. The
# handler is a function of the module's and what it calls is kept here,
# where the agent finds them as its own (see _own.py): a closure made at
# install time is held only by the interpreter's table of handlers, and
# was in every snapshot (function heapscope._run._install_signal.<locals>
# .handler, held outside the heap).
_prev_handlers = {}


def _on_signal(sig, frame):
    import signal
    # Waits for an interval capture, never for its own thread; a fork
    # capture does not wait for other fork captures' children (when too
    # many run, the signal's snapshot is skipped, with a message).
    take("signal", block=not _cfg["fork"])
    prev = _prev_handlers.get(sig)
    if callable(prev) and prev not in (signal.SIG_DFL, signal.SIG_IGN):
        prev(sig, frame)


def _install_fatal(snap_signal):
    """A signal whose default action ends the process ends it without
    running atexit. For SIGTERM and SIGHUP, when nothing handles them
    (SIG_DFL) and they are not the snapshot signal, a handler takes the
    at-exit snapshot, then restores the default and sends the signal
    again: the process still dies of it, with the same status. A handler
    the program installs later replaces this one; it decides then, and
    if it exits, atexit takes the snapshot."""
    import signal
    snap = snap_signal.strip().upper()
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or snap in (name, name[3:], str(int(signum))):
            continue
        try:
            if signal.getsignal(signum) != signal.SIG_DFL:
                continue
            signal.signal(signum, _fatal)
        except (ValueError, OSError):
            pass  # not the main thread, or not allowed: no snapshot then


def _fatal(sig, frame):
    import signal
    if os.getpid() == _cfg["pid"] or _cfg["children"]:
        _cfg["stop"] = True
        if not _cfg["exit_taken"]:
            _cfg["exit_taken"] = True
            take("exit", block=True)
    try:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    except BaseException:
        os._exit(128 + sig)


def _loop(every):
    nxt = time.monotonic() + every
    while not _cfg["stop"]:
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(min(d, 0.5))
            continue
        nxt += every
        if _cfg["stop"]:
            break
        try:
            # Waits for a capture in progress (a signal's, the program's
            # own), then is taken unless the program has begun to exit.
            take("interval", block=True)
        except BaseException:
            pass
        now = time.monotonic()
        if nxt < now:
            nxt = now + every


def _at_exit(enabled):
    _cfg["stop"] = True
    # A fork capture's child still writing finishes its file before the
    # program is gone (heapscope run counts the files when it ends).
    _wait_children()
    if enabled and not _cfg["exit_taken"]:
        _cfg["exit_taken"] = True
        take("exit", block=True)


def _wait_children():
    try:
        if _fork is not None:
            _fork.wait_all()
    except BaseException:
        pass


def _next_path(reason):
    """The path of the next snapshot, numbered now that the capture is
    this thread's; None for an interval snapshot once the program began
    to exit. A function of the module's, not a closure made per capture:
    made before the capture lists the heap, a closure would be in the
    snapshot, held by the agent's running frame, which the snapshot does
    not list (every snapshot of run had one function
    heapscope._run.take.<locals>.name, held outside the heap)."""
    if reason == "interval" and _cfg["stop"]:
        return None
    with _count_lock:
        _cfg["n"] += 1
        n = _cfg["n"]
    return os.path.join(_cfg["out"], "%04d-%d-%s.pysnap" % (n, os.getpid(), reason))


def take(reason, block=True):
    """Takes one snapshot into the output directory; returns its path or None.
    The file is numbered once the capture is this thread's, so numbers
    follow the order of the captures, with no gap; an interval snapshot
    whose turn comes after the program began to exit is not taken."""
    try:
        pid = os.getpid()
        if pid != _cfg["pid"]:
            if not _cfg["children"]:
                return None
            with _count_lock:
                _cfg["pid"] = pid
                _cfg["n"] = 0
        fork = _cfg["fork"] and reason in ("signal", "interval")
        counts = note_counts if _cfg["watch"] and reason != "exit" else None
        return _snapshot(_next_path, _cfg["values"], _cfg["max_value_len"], _cfg["collect"] and not fork, reason, block,
                         _cfg["edges"], fork, None, counts)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        if _from_host(e):
            raise  # raised by the program's own signal handler
        _stderr("heapscope: %s snapshot failed: %s" % (reason, _describe(e)))
        return None


# The watch of growth (HEAPSCOPE_WATCH_GROWTH): the class counts of the
# last three full snapshots, oldest first, the time the newest was taken
# at, and how many classes it watched.
_growth = {"t": 0.0, "counts": [], "watched": 0}
_growth_lock = _thread.allocate_lock()
WATCH_MAX = 64      # classes watched at most, in all
WATCH_FRAMES = 16   # frames noted per allocation


def note_counts(t, counts):
    """Takes the class counts of a full snapshot taken at time t
    ({id(class): instances}, see heapscope._snapshot's on_counts) and
    watches (see _watch) the classes whose instances grew in both
    intervals between the last three, as the leak check and the
    three-snapshot rule of `heapscope leaks` ask: from then on, the
    snapshots say where their instances were made. A class that grew
    once, or grew and shrank, is not watched: only a watched class's
    allocations are slowed. A fork capture's counts come when its child
    ends, so they can come out of order: counts older than the newest
    taken are dropped. The classes with the most new instances first,
    WATCH_MAX in all; none while tracemalloc gives every object's site,
    nor once the program began to exit (a fork capture's child that ends
    then). Raises only what the program's signal handlers raise."""
    try:
        from . import _sites, _watch
        with _growth_lock:
            if t <= _growth["t"] or _cfg["stop"]:
                return
            _growth["t"] = t
            hist = _growth["counts"]
            hist.append(counts)
            del hist[:-3]
            room = WATCH_MAX - _growth["watched"]
            if len(hist) < 3 or room <= 0 or _sites.tracing():
                return
            a, b, c = hist
            grew = sorted((b.get(k, 0) - n, k) for k, n in c.items() if n > b.get(k, 0) > a.get(k, 0))
            if not grew:
                return
            live = _watch.live_classes(k for _, k in grew)
            had = {id(x) for x in _watch.watched()}
            classes = []
            for _, k in grew:
                x = live.get(k)
                if x is not None and k not in had and _watch.refusal(x) is None:
                    classes.append(x)
                    if len(classes) == room:
                        break
            live = None
            if not classes:
                return
            _watch.watch(classes, WATCH_FRAMES)
            _growth["watched"] += len(classes)
            first = _cfg["n"] + 1   # the next snapshot's number: the first taken since
        from ._introspect import type_name
        names = [type_name(x) for x in classes[:5]]
        if len(classes) > 5:
            names.append("and %d more" % (len(classes) - 5))
        _stderr("heapscope: the instances of %d class%s grew in both intervals between the last three "
                "snapshots (%s); the snapshots from %04d on say where their new instances are allocated" % (
                    len(classes), "" if len(classes) == 1 else "es", ", ".join(names), first))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:
        if _from_host(e):
            raise  # raised by the program's own signal handler
