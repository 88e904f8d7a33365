# A capture leaves nothing behind: after snapshot() returns, an object
# the program deletes is freed (its memory returns: RSS falls; a weak
# reference to it dies), nothing new refers to the program's objects,
# and the locals() dicts of running frames (this thread's, another
# thread's, a suspended generator's) are as they were.
import gc
import json
import os
import sys
import threading
import weakref

import heapscope


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // (1 << 20)


class Obj:
    pass


out = {}
path = os.path.join(sys.argv[1], "l.pysnap")


def buffer_and_weakref():
    buf = bytearray(300 << 20)
    buf[::4096] = b"x" * len(buf[::4096])   # touch every page
    o = Obj()
    w = weakref.ref(o)
    before = rss_mb()
    marker = Obj()
    refs = sorted(map(id, gc.get_referrers(marker)))
    out["snapshot"] = heapscope.snapshot(path)
    out["same_referrers"] = sorted(map(id, gc.get_referrers(marker))) == refs
    with_buf = rss_mb()
    del buf, o
    gc.collect()
    out["rss_mb"] = [before, with_buf, rss_mb()]
    out["weakref_dead"] = w() is None


def frame_locals():
    ready = threading.Event()
    go = threading.Event()
    seen = {}

    def other():
        a = 1
        d = locals()
        k = sorted(d)
        b = 2
        ready.set()
        go.wait()
        seen["other"] = [k, sorted(d)]

    def gen():
        a = 1
        d = locals()
        k = sorted(d)
        b = 2
        yield
        seen["generator"] = [k, sorted(d)]

    t = threading.Thread(target=other)
    t.start()
    ready.wait()
    g = gen()
    next(g)
    a = 1
    d = locals()
    k = sorted(d)
    b = 2
    heapscope.snapshot(path)
    heapscope.snapshot(path, values=False)
    heapscope.snapshot(path, edges=False)
    seen["this"] = [k, sorted(d)]
    go.set()
    t.join()
    next(g, None)
    out["locals"] = seen


buffer_and_weakref()
frame_locals()
print(json.dumps(out))
