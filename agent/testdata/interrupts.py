# A capture interrupted at any point (KeyboardInterrupt, or the
# program's own exception from a signal handler, at many moments spread
# over the capture and the write) passes the exception on and leaves no
# temporary file; a file with the final name is only ever a whole one.
# A directory as the target is an error message and None, not an
# exception. Usage: interrupts.py DIR
import json
import os
import signal
import sys
import threading
import time

import heapscope

junk = [[str(i), float(i)] for i in range(20000)]
d = sys.argv[1]
target = os.path.join(d, "x.pysnap")


class Stop(Exception):
    pass


def whole(p):
    with open(p, "rb") as f:
        f.seek(-4, 2)
        return f.read() == b"HEND"


took = None
for _ in range(3):
    t0 = time.perf_counter()
    heapscope.snapshot(target)
    dt = time.perf_counter() - t0
    took = dt if took is None else min(took, dt)
    os.unlink(target)
out = {"interrupted": 0, "returned": 0, "left": [], "broken": 0}


def check():
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if n == "x.pysnap":
            if not whole(p):
                out["broken"] += 1
            os.unlink(p)
        elif os.path.isfile(p):
            out["left"].append(n)
            os.unlink(p)


for i in range(1, 21):
    exc = KeyboardInterrupt if i % 2 else Stop

    def on_alarm(sig, frame, exc=exc):
        raise exc()

    signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, took * i / 18)
        heapscope.snapshot(target, values=i % 3 != 0, edges=i % 5 != 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        out["returned"] += 1
    except (KeyboardInterrupt, Stop):
        out["interrupted"] += 1
    signal.setitimer(signal.ITIMER_REAL, 0)
    check()
# A real SIGINT (the interpreter's default handler) from another thread.
signal.signal(signal.SIGINT, signal.default_int_handler)
for i in range(1, 4):
    timer = threading.Timer(took * i / 4, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        heapscope.snapshot(target)
        timer.join()
        out["returned"] += 1
    except KeyboardInterrupt:
        out["interrupted"] += 1
    timer.join()
    check()
out["directory"] = heapscope.snapshot(d)
out["directory_slash"] = heapscope.snapshot(d + "/")
check()
out["files"] = sorted(os.listdir(d))
print(json.dumps(out))
