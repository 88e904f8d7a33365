"""Fork captures: a child process walks a copy of the heap, so that the
program stops only for the fork (Linux).

Private module of the heapscope agent. spawn() forks the process; the
child walks its copy-on-write image of the heap, as it was at the fork,
writes the snapshot and exits; the program goes on as soon as the fork
returns. A thread of the agent's in the program waits for the child,
reaps it and reports how it ended (on_done).

The child runs none of the program's code and takes no lock the program
may hold:

* The fork is libc's fork(), called through ctypes without releasing
  the interpreter lock (a PYFUNCTYPE call), not os.fork: no
  os.register_at_fork callback runs, in the program or in the child, and
  no thread can be halfway through a bytecode, so every object is whole.
  libc's fork makes its allocator safe to use in the child (the only
  code besides the interpreter that the child runs is what C libraries
  registered with pthread_atfork, which runs around any fork).
* It forks on a thread of its own, never the main thread, with every
  signal blocked: the child's one thread is not the main thread, so the
  interpreter never runs the program's signal handlers or pending calls
  in it, and no signal is delivered to it at all.
* Other threads of the program may have held the interpreter lock's
  internal mutex, or waited on its condition variables, at the moment of
  the fork; in the child those threads are gone, and a release of the
  lock would wait for them forever. So, in the same chain of C calls as
  the fork, before any bytecode runs, the child makes its copy of the
  interpreter lock new again (its mutexes and condition variables
  initialized afresh, as CPython does after os.fork) and clears the
  request a waiting thread may have made to drop it, which the child
  would otherwise honour by waiting for a thread that does not exist
  there. _layout says where those are on each CPython from 3.9 to 3.13
  and checks it against what it knows (the recursion limit, the lock's
  holder and switch interval) before every fork; in the program the same
  calls write into a scratch buffer. The interpreter's thread list is
  never walked in the child (its lock, too, may have been held): the
  stacks of the threads come from sys._current_frames(), taken before
  the fork.
* Garbage is not collected (gc.collect() would run finalizers, the
  program's code, in the child, or stop the program for the collection
  in the parent); the collector is off in the child.
* It exits with os._exit: no atexit handler, no flush of the program's
  buffers; it never returns into the program's code.

What it costs in memory: the child shares the program's pages until one
side writes to them; the walk writes every object's reference count, so
about every page of the heap is copied once, and the child allocates its
own tables. memory_check() refuses to fork when the system (or the
process's cgroup) has less memory available than the program's resident
heap plus the walk's tables; the child asks the kernel to pick it first
if memory still runs out (oom_score_adj 1000), so that the program is
not the one killed.
"""

import _thread
import errno
import gc
import os
import select
import signal
import sys
import time
from itertools import chain, repeat, tee
from operator import add, getitem, methodcaller, not_

_V = sys.version_info[:2]

try:
    import ctypes
except ImportError:
    ctypes = None

UNAVAILABLE = None   # why fork captures cannot be taken here, or None
if not sys.platform.startswith("linux"):
    UNAVAILABLE = "fork captures are for Linux only"
elif ctypes is None:
    UNAVAILABLE = "fork captures need ctypes, which this Python lacks"
elif not (3, 9) <= _V <= (3, 13):
    UNAVAILABLE = "fork captures know the interpreters of CPython 3.9 to 3.13, not %d.%d" % _V
elif sys.implementation.name != "cpython" or hasattr(sys, "gettotalrefcount"):
    UNAVAILABLE = "fork captures know release builds of CPython only"
elif getattr(sys, "_is_gil_enabled", lambda: True)() is not True:
    UNAVAILABLE = "fork captures do not know free-threaded CPython"
elif ctypes.sizeof(ctypes.c_void_p) != 8:
    UNAVAILABLE = "fork captures know 64-bit CPython only"

_CALL = methodcaller("__call__")

if UNAVAILABLE is None:
    try:
        _libc = ctypes.CDLL(None)
        _api = ctypes.pythonapi

        def _nogil(name, restype, *argtypes):
            """libc's name, called without releasing the interpreter lock.
            (Not with ctypes' use_errno: that keeps an object in the
            calling thread's dict, which the child would list.)"""
            return ctypes.PYFUNCTYPE(restype, *argtypes)((name, _libc))

        _c_fork = _nogil("fork", ctypes.c_int)
        _c_memmove = _nogil("memmove", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
        _c_mutex_init = _nogil("pthread_mutex_init", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        _c_cond_init = _nogil("pthread_cond_init", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        _interp = ctypes.PYFUNCTYPE(ctypes.c_void_p)(("PyInterpreterState_Get", _api))
        _tstate = ctypes.PYFUNCTYPE(ctypes.c_void_p)(("PyThreadState_Get", _api))
        _runtime = ctypes.addressof(ctypes.c_char.in_dll(_api, "_PyRuntime"))
        _i32 = ctypes.c_int32.from_address
        _u64 = ctypes.c_uint64.from_address
        _errno_at = _nogil("__errno_location", ctypes.c_void_p)
        # What the memmove after the fork copies, and where it writes in
        # the program: made now, so that a fork makes no ctypes object a
        # cache of ctypes would keep.
        _SRC = ctypes.c_uint64()
        _SCRATCH = ctypes.create_string_buffer(256)   # a GIL struct's size and more
        # The condition variables' attribute: CPython's own use the
        # monotonic clock (its timed waits count on it).
        _CONDATTR = ctypes.create_string_buffer(64)
        if (_nogil("pthread_condattr_init", ctypes.c_int, ctypes.c_void_p)(_CONDATTR) != 0
                or _nogil("pthread_condattr_setclock", ctypes.c_int, ctypes.c_void_p, ctypes.c_int)(_CONDATTR, 1) != 0):
            raise OSError("pthread_condattr")
    except (AttributeError, OSError, ValueError) as e:
        UNAVAILABLE = "fork captures cannot reach libc or the interpreter here (%s)" % type(e).__name__

# Where each CPython keeps what the child resets (offsets in bytes,
# release builds on 64-bit Linux, from the versions' own headers):
# rl, the recursion limit in the interpreter state, to check it; eb, the
# eval breaker there, an int, with the drop request an int just after it
# (3.9-3.12; 3.13 keeps both in the thread state's word at 24, the
# requests in its low 8 bits, the instrumentation version above them);
# gil, the interpreter lock's state, in _PyRuntime (3.9-3.11) or pointed
# to from the interpreter state (3.12, 3.13). The lock's own layout is
# the same on all: interval (microseconds) at 0, last holder at 8, locked
# at 16, then its condition variable at 32, mutex at 80, and the
# condition variable and mutex of forced switching at 120 and 168.
_LAYOUT = {
    (3, 9): {"rl": 64, "eb": 72, "gil": ("runtime", 352)},
    (3, 10): {"rl": 64, "eb": 68, "gil": ("runtime", 352)},
    (3, 11): {"rl": 96, "eb": 100, "gil": ("runtime", 360)},
    (3, 12): {"rl": 376, "eb": 368, "gil": ("interp", 384)},
    (3, 13): {"rl": 8, "eb": None, "gil": ("interp", 16)},
}
_GIL_MUTEXES = (80, 168)
_GIL_CONDS = (32, 120)


def _layout():
    """(eval breaker address, its new 8 bytes, GIL address): what the
    child resets in its copy of the interpreter before any bytecode runs.
    Called with the interpreter lock held, on the forking thread. Raises
    RuntimeError if what is there is not what the layout says."""
    interp = _interp()
    ts = _tstate()
    lay = _LAYOUT[_V]
    if _i32(interp + lay["rl"]).value != sys.getrecursionlimit():
        raise RuntimeError("the interpreter state is not laid out as expected")
    where, off = lay["gil"]
    gil = _runtime + off if where == "runtime" else _u64(interp + off).value
    if (_u64(gil + 8).value != ts or _i32(gil + 16).value != 1
            or abs(_u64(gil).value - round(sys.getswitchinterval() * 1e6)) > 1):
        raise RuntimeError("the interpreter lock is not laid out as expected")
    if lay["eb"] is None:
        if _u64(ts + 16).value != interp:
            raise RuntimeError("the thread state is not laid out as expected")
        return ts + 24, (_u64(ts + 24).value & ~0xFF).to_bytes(8, "little"), gil
    eb = interp + lay["eb"]
    if not 0 <= _i32(eb).value <= 1 or not 0 <= _i32(eb + 4).value <= 1:
        raise RuntimeError("the eval breaker is not laid out as expected")
    return eb, bytes(8), gil   # the eval breaker and the drop request, cleared


def memory_check(rss_anon, census, running=0):
    """None, or why the child would need more memory than there is: its
    copy of every page of the heap it touches (up to the program's
    resident anonymous memory, rss_anon bytes) and the walk's own tables
    (about half as much again for a full capture, a quarter for a
    census), as much again for each of the running children (which may
    not have copied their pages yet), against MemAvailable and the
    cgroup's room."""
    need = (rss_anon + rss_anon // (4 if census else 2)) * (1 + running)
    avail, where = _available()
    if avail is None or need <= avail:
        return None
    return ("the child that takes the snapshot may need up to %s (a copy of the program's %s of heap, "
            "made page by page as the walk writes reference counts, and the walk's tables%s) and %s "
            "has %s available" % (_human(need), _human(rss_anon),
                                  ", for it and the %d still running" % running if running else "",
                                  where, _human(avail)))


def _available():
    """(bytes available, where that limit is), or (None, "")."""
    avail = where = None
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    where = "the system"
    except (OSError, ValueError):
        pass
    room = _cgroup_room()
    if room is not None and (avail is None or room < avail):
        avail, where = room, "the process's cgroup"
    return avail, where or ""


def _cgroup_room():
    """memory.max - memory.current of the process's cgroup (v2), or
    limit - usage (v1); None when unlimited or unknown."""
    try:
        with open("/proc/self/cgroup", "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            base, files = "/sys/fs/cgroup" + parts[2], ("memory.max", "memory.current")
        elif "memory" in parts[1].split(","):
            base, files = "/sys/fs/cgroup/memory" + parts[2], ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        try:
            with open(os.path.join(base, files[0]), "rb") as f:
                limit = f.read().strip()
            with open(os.path.join(base, files[1]), "rb") as f:
                used = int(f.read().strip())
            if limit == b"max" or int(limit) >= 1 << 60:
                return None
            return max(int(limit) - used, 0)
        except (OSError, ValueError):
            return None
    return None


def rss_anon():
    """The process's resident anonymous memory in bytes (0 if unknown)."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"RssAnon:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def _human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


def oom_first():
    """In the child: asks the kernel to kill it before anything else when
    memory runs out (raising one's own oom_score_adj needs no
    privilege)."""
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass


# ---------------------------------------------------------------------------
# In the program.

IN_CHILD = False      # True in a child: it has one thread (_untraced swaps RAW there too)
_children = {}        # pid -> the thread ident of its reaper; a child at a time
# The last fork's wall and CPU time on the forking thread (for the
# benchmarks): {"seconds": s, "cpu_seconds": s}.
LAST = {}
_children_lock = _thread.allocate_lock()
STUCK_SECONDS = 10.0  # a child asleep on a lock this long, using no CPU, is killed


def running():
    """Whether a fork capture's child is running."""
    return bool(_children)


# How many children may walk at once: a signal's snapshot while as many
# run is skipped (with a message), an interval's waits for one to end.
MAX_CHILDREN = 4


def wait_below(n):
    """Waits until fewer than n children run."""
    while len(_children) >= n:
        time.sleep(0.02)


def wait_all(timeout=None):
    """Waits for the running children (at exit)."""
    end = None if timeout is None else time.monotonic() + timeout
    while _children and (end is None or time.monotonic() < end):
        time.sleep(0.02)


# What the forking thread and the child work with. It is the agent's
# module's, so that the child's walk knows it for the agent's (_own); the
# child takes no reference to what it holds in its own locals before the
# walk has listed the objects, and the program's side empties it once the
# fork is done. A fork at a time (the caller holds the agent's lock).
JOB = {}


def spawn(child, on_done):
    """Forks the process on a thread of the agent's. In the child, runs
    child(status_fd, t_fork) (which must not return: it ends with
    os._exit; JOB holds what the caller put there); in the program,
    returns (pid, fork_seconds, raised) once the fork returned, and reaps
    the child on that thread, which then calls on_done(ok, messages): ok
    when the child wrote "ok" last on its status pipe and exited 0;
    messages are the other lines it wrote. Raises RuntimeError when it
    cannot fork (with why). The calling thread waits for the fork on a
    pipe: it holds nothing but ints then, which the child would list as
    the program's. An exception a signal handler of the program raises
    in it meanwhile (KeyboardInterrupt) does not end the wait, since the
    forking thread still works with JOB and the pipes: once the fork is
    done it is raised instead of the RuntimeError, or returned as raised
    for the caller to raise once the child has the capture in hand."""
    r, w = os.pipe()
    hr, hw = os.pipe()
    JOB.update(child=child, on_done=on_done, r=r, w=w, handoff=hw)
    raised = None
    try:
        # No arguments: a tuple of them would be held by the thread's
        # start-up state, outside the heap, in the child too.
        _thread.start_new_thread(_forker, ())
    except (RuntimeError, MemoryError):
        # The thread did not start.
        JOB.clear()
        for fd in (r, w, hr, hw):
            os.close(fd)
        raise
    except BaseException as e:
        # A signal handler's, as the call returned: the thread runs.
        raised = e
    try:
        while True:
            try:
                os.read(hr, 1)
                break
            except BaseException as e:
                if getattr(e, "errno", None) == errno.EBADF:
                    raise  # the pipe itself failed: no word will come
                if raised is None:
                    raised = e
    finally:
        os.close(hr)
    res = JOB.pop("result", ("error", "the forking thread ended without a word"))
    JOB.clear()
    if res[0] == "error":
        if raised is not None:
            raise raised
        raise RuntimeError(res[1])
    return res[1], res[2], raised


def _forker():
    """The forking thread: every signal blocked, the collector off while
    it forks; in the program it then becomes the child's reaper."""
    global IN_CHILD
    r, w, hw = JOB["r"], JOB["w"], JOB["handoff"]
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        enabled = gc.isenabled()
        gc.disable()
        try:
            eb, data, gil = _layout()
            # The threads' stacks as they are at the fork (no other
            # thread runs until it returns): the child reads them here.
            JOB["frames"] = sys._current_frames()
            _SRC.value = int.from_bytes(data, "little")
            # Each call after the fork writes into the scratch buffer in
            # the program (fork returned a pid) and into the interpreter
            # in the child (0): not_(pid) picks the base address.
            base = (ctypes.addressof(_SCRATCH), gil)
            ebase = (ctypes.addressof(_SCRATCH), eb)
            t0 = time.perf_counter()
            c0 = time.thread_time()
            # One chain of C calls: no bytecode runs in the child between
            # the fork and the last of them.
            pids = tee(map(_CALL, (_c_fork,)), 6)
            out = list(chain(
                map(_c_memmove, map(getitem, repeat(ebase), map(not_, pids[0])),
                    repeat(ctypes.addressof(_SRC)), repeat(8)),
                map(_c_mutex_init, map(add, map(getitem, repeat(base), map(not_, pids[1])),
                                       repeat(_GIL_MUTEXES[0])), repeat(None)),
                map(_c_cond_init, map(add, map(getitem, repeat(base), map(not_, pids[2])),
                                      repeat(_GIL_CONDS[0])), repeat(ctypes.addressof(_CONDATTR))),
                map(_c_mutex_init, map(add, map(getitem, repeat(base), map(not_, pids[3])),
                                       repeat(_GIL_MUTEXES[1])), repeat(None)),
                map(_c_cond_init, map(add, map(getitem, repeat(base), map(not_, pids[4])),
                                      repeat(_GIL_CONDS[1])), repeat(ctypes.addressof(_CONDATTR))),
                pids[5]))
            pid = out[5]
            if pid == 0:
                IN_CHILD = True
                try:
                    # Nothing of this thread's but ints is left to be
                    # listed as the program's.
                    del pids, out, base, ebase, data
                    os.close(r)
                    oom_first()
                    JOB["child"](w, t0)
                finally:
                    os._exit(70)
            t1 = time.perf_counter()
            LAST.update(seconds=t1 - t0, cpu_seconds=time.thread_time() - c0)
            del pids, out, base, ebase
        finally:
            if enabled:
                gc.enable()
        if pid < 0:
            e = _i32(_errno_at()).value
            raise OSError(e, "fork: " + os.strerror(e))
    except BaseException as e:
        for fd in (r, w):
            try:
                os.close(fd)
            except OSError:
                pass
        JOB["result"] = ("error", "%s: %s" % (type(e).__name__, e))
        _handoff(hw)
        return
    os.close(w)
    on_done = JOB["on_done"]
    with _children_lock:
        _children[pid] = _thread.get_ident()
    JOB["result"] = ("ok", pid, t1 - t0)
    _handoff(hw)
    ok, messages = False, []
    try:
        ok, messages = _reap(pid, r)
    finally:
        # The child counts as running until what it sent is taken in
        # (wait_all() then means: every capture's outcome is known).
        try:
            on_done(ok, messages)
        except BaseException:
            pass
        with _children_lock:
            _children.pop(pid, None)


def _handoff(hw):
    """Wakes the thread that waits in spawn() (hw: its pipe). It never
    raises: the forking thread must go on to reap the child, or the
    child would count as running for good (and the program wait for it
    at exit)."""
    try:
        os.write(hw, b"x")
    except BaseException:
        pass
    try:
        os.close(hw)
    except BaseException:
        pass


def _reap(pid, r):
    """Reads the child's status pipe to its end, then reaps it. A child
    that sleeps on a lock for STUCK_SECONDS with no CPU time spent is
    killed (a lock another thread of the program held at the fork)."""
    chunks = []
    last, still = None, 0.0
    try:
        while True:
            ready, _, _ = select.select([r], [], [], 1.0)
            if ready:
                b = os.read(r, 65536)
                if not b:
                    break
                chunks.append(b)
                continue
            cpu, waiting = _progress(pid)
            if waiting and cpu == last:
                still += 1.0
                if still >= STUCK_SECONDS:
                    os.kill(pid, signal.SIGKILL)
                    chunks.append(b"\nthe child that took the snapshot got stuck waiting on a lock "
                                  b"(another thread held it at the fork) and was killed\n")
                    break
            else:
                still = 0.0
            last = cpu
    finally:
        os.close(r)
    text = b"".join(chunks).decode("utf-8", "backslashreplace")
    lines = [l for l in text.splitlines() if l]
    ok = lines[-1:] == ["ok"]
    messages = [l for l in lines if l != "ok"]
    try:
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            messages.append("the child that took the snapshot was killed by signal %d%s" % (
                sig, " (out of memory?)" if sig == signal.SIGKILL else ""))
            ok = False
        elif os.WEXITSTATUS(status) != 0:
            ok = False
            if not messages:
                messages.append("the child that took the snapshot exited with status %d" % os.WEXITSTATUS(status))
    except ChildProcessError:
        # The program reaped it (os.wait(), a SIGCHLD handler): its pipe
        # said how it ended.
        if not ok and not messages:
            messages.append("the child that took the snapshot ended without finishing it")
    return ok, messages


def _progress(pid):
    """(CPU ticks used, asleep on a futex) of process pid."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            st = f.read()
        fields = st[st.rindex(b")") + 2:].split()
        cpu = int(fields[11]) + int(fields[12])
        with open("/proc/%d/wchan" % pid, "rb") as f:
            wchan = f.read()
        return cpu, fields[0] == b"S" and b"futex" in wchan
    except (OSError, ValueError, IndexError):
        return None, False
