"""Fork captures (heapscope.snapshot(path, fork=True)), for fork_test.go.

    fork.py equal DIR     a stop-the-world capture and a fork capture of
                          the same heap, full and census, while other
                          threads want the interpreter lock, one holds
                          logging's lock and one waits on a lock
    fork.py safety DIR    what the child must not do: at-fork callbacks,
                          atexit handlers, flushing the program's buffers;
                          and that it is reaped
    fork.py killed DIR    the child killed: the program is told, and the
                          temporary file is removed
    fork.py refuse DIR    not enough memory for the child: refused with a
                          message
    fork.py interrupted DIR
                          a KeyboardInterrupt while the main thread waits
                          for the fork (the forking thread sends SIGINT
                          and hands off once its handler has run): the
                          child is still reaped, and the exception
                          reaches the program

Prints one JSON line last.
"""

import atexit
import json
import logging
import os
import sys
import threading
import time

import heapscope
from heapscope import _fork

mode, out = sys.argv[1], sys.argv[2]


class Record:
    def __init__(self, i):
        self.i = i
        self.name = "record-%d" % i
        self.tags = [i, str(i), (i, i + 1)]


records = [Record(i) for i in range(20000)]
table = {r.name: r for r in records[:5000]}


def wait_for(path, seconds=300):
    end = time.time() + seconds
    while not os.path.exists(path) and time.time() < end:
        time.sleep(0.02)
    return os.path.exists(path)


def wait_children(seconds=60):
    end = time.time() + seconds
    while _fork.running() and time.time() < end:
        time.sleep(0.02)


def pair(a, b, edges):
    # Nothing of the program's changes between the two captures.
    heapscope.snapshot(a, collect=False, edges=edges)
    heapscope.snapshot(b, fork=True, edges=edges)


def zombies():
    """Children of this process that are zombies."""
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if fields[1] == me and fields[0] == "Z":
            found.append(int(pid))
    return found


if mode == "equal":
    stop = False

    def spin():
        # Wants the interpreter lock all the time: at the fork it may hold
        # the lock's mutex or wait on its condition variable.
        while not stop:
            pass

    held = threading.Event()

    def hold_logging():
        logging._acquireLock() if hasattr(logging, "_acquireLock") else logging._lock.acquire()
        held.set()
        while not stop:
            time.sleep(0.01)
        logging._releaseLock() if hasattr(logging, "_releaseLock") else logging._lock.release()

    blocker = threading.Lock()
    blocker.acquire()
    threads = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
    threads.append(threading.Thread(target=hold_logging, daemon=True))
    threads.append(threading.Thread(target=blocker.acquire, daemon=True))
    for t in threads:
        t.start()
    held.wait()
    pair(os.path.join(out, "a-full.pysnap"), os.path.join(out, "b-full.pysnap"), True)
    ok_full = wait_for(os.path.join(out, "b-full.pysnap"))
    wait_children()
    pair(os.path.join(out, "a-census.pysnap"), os.path.join(out, "b-census.pysnap"), False)
    ok_census = wait_for(os.path.join(out, "b-census.pysnap"))
    wait_children()
    stop = True
    blocker.release()
    print(json.dumps({"full": ok_full, "census": ok_census, "zombies": zombies(),
                      "left": sorted(n for n in os.listdir(out) if n.endswith(".tmp"))}))

elif mode == "safety":
    marks = os.path.join(out, "marks")
    os.mkdir(marks)

    def mark(name):
        with open(os.path.join(marks, "%s.%d" % (name, os.getpid())), "w"):
            pass

    os.register_at_fork(before=lambda: mark("before"), after_in_parent=lambda: mark("parent"),
                        after_in_child=lambda: mark("child"))
    atexit.register(mark, "atexit")
    # Left in stdout's buffer (a pipe: block-buffered): a child that
    # flushed the program's buffers would write it a second time.
    sys.stdout.write("unflushed line\n")
    path = os.path.join(out, "s.pysnap")
    got = heapscope.snapshot(path, fork=True)
    ok = wait_for(path)
    wait_children()
    time.sleep(0.2)
    sys.stdout.write(json.dumps({"returned": got, "written": ok, "marks": sorted(os.listdir(marks)),
                                 "pid": os.getpid(), "zombies": zombies()}) + "\n")

elif mode == "killed":
    import signal
    path = os.path.join(out, "k.pysnap")
    # A big enough heap that the child is still walking it when killed.
    more = [[i, str(i)] for i in range(300000)]
    got = heapscope.snapshot(path, fork=True)
    pid = next(iter(_fork._children), None)
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
    wait_children()
    time.sleep(0.2)
    print(json.dumps({"returned": got, "child": pid, "written": os.path.exists(path),
                      "left": sorted(os.listdir(out)), "zombies": zombies()}))

elif mode == "refuse":
    direct = _fork.memory_check(1 << 50, False)
    _fork.rss_anon = lambda: 1 << 50   # a heap larger than any machine's memory
    path = os.path.join(out, "r.pysnap")
    got = heapscope.snapshot(path, fork=True)
    print(json.dumps({"direct": direct, "returned": got, "written": os.path.exists(path),
                      "left": sorted(os.listdir(out))}))

elif mode == "interrupted":
    import signal
    path = os.path.join(out, "i.pysnap")
    when = {}
    handoff = _fork._handoff

    def slow_handoff(*args):
        # On the forking thread, the fork done, before the main thread is
        # told: it is waiting for the word now. SIGINT goes to it alone,
        # as kill(1) sends it when no other thread can take it (the
        # forking thread blocks every signal); its handler has run before
        # the word goes.
        signal.pthread_kill(main, signal.SIGINT)
        end = time.monotonic() + 60
        while "sigint" not in when and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.2)
        when["handoff"] = time.monotonic()
        return handoff(*args)

    def on_sigint(sig, frame):
        when["sigint"] = time.monotonic()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_sigint)
    _fork._handoff = slow_handoff
    main = threading.get_ident()
    raised = got = None
    try:
        got = heapscope.snapshot(path, fork=True)
    except KeyboardInterrupt:
        raised = "KeyboardInterrupt"
    wait_children(30)
    _fork._handoff = handoff
    running = _fork.running()
    print(json.dumps({"returned": got, "raised": raised, "while_waiting": when.get("sigint", 1e9) < when.get("handoff", 0),
                      "running": running, "written": os.path.exists(path), "left": sorted(os.listdir(out)),
                      "zombies": zombies()}), flush=True)
    if running:
        os._exit(0)  # the child was never reaped; the test says so
