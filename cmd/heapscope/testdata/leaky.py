"""A Python program with two planted leaks among a bounded LRU cache,
warm-up allocations and churn. It writes three snapshots into the
directory given as its argument: after a warm-up (baseline), after more
work (target), and after as much again (final)."""
import functools
import os
import sys
from collections import OrderedDict

import heapscope


class RequestContext:
    def __init__(self, i):
        self.id = i
        self.user = "user-%d" % i
        self.headers = {"accept": "text/html", "id": str(i)}


class Listener:
    def __init__(self, i):
        self.i = i

    def __call__(self):
        return self.i


class CacheEntry:
    def __init__(self, key):
        self.key = key
        self.values = [key] * 16


class LRU:
    def __init__(self, limit):
        self.limit = limit
        self.data = OrderedDict()

    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.limit:
            self.data.popitem(last=False)


contexts = {}          # leak 1: a module-level dict that only grows
listeners = []         # leak 2: callbacks that are never removed
lru = LRU(50)          # bounded: not a leak
warm = None            # filled once, during warm-up


@functools.lru_cache(maxsize=32)
def parse(n):
    return ("parsed", n % 7)


def handle(i):
    contexts[i] = RequestContext(i)
    listeners.append(Listener(i))
    lru.put("k%d" % i, CacheEntry(i))
    parse(i)
    junk = [{"j": j, "s": "tmp%d" % j} for j in range(20)]   # churn
    return len(junk)


def main(out):
    global warm
    for i in range(300):
        handle(i)
    warm = [[i] * 4 for i in range(100)]
    heapscope.snapshot(os.path.join(out, "baseline.pysnap"))
    for i in range(300, 600):
        handle(i)
    heapscope.snapshot(os.path.join(out, "target.pysnap"))
    for i in range(600, 900):
        handle(i)
    heapscope.snapshot(os.path.join(out, "final.pysnap"))


if __name__ == "__main__":
    main(sys.argv[1])
