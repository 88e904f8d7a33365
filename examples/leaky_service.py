"""A small service that leaks the way real programs do, for heapscope's demo.

- It makes one class per handler and caches it in a module-level dict
  that is never trimmed (a symbolic library's classic leak).
- It keeps every request's context in a list "for debugging".
- It keeps a bounded LRU cache, which is not a leak.

It writes three snapshots into the directory given as its argument: after a
warm-up, after 200 requests, and after 200 more.
"""
import os
import sys
from collections import OrderedDict

import heapscope

_class_cache = {}        # leak 1: one dynamic class per handler name
debug_log = []           # leak 2: every request context, forever
recent = OrderedDict()   # bounded: the last 32 results


class Context:
    def __init__(self, n):
        self.n = n
        self.path = "/items/%d" % n
        self.body = bytearray(512)


def field_class(name):
    cls = _class_cache.get(name)
    if cls is None:
        cls = type("Field" + name, (object,), {"name": name})
        _class_cache[name] = cls
    return cls


def handle(n):
    ctx = Context(n)
    debug_log.append(ctx)
    cls = field_class("F%d" % n)
    recent[n] = cls()
    if len(recent) > 32:
        recent.popitem(last=False)
    scratch = [str(i) * 3 for i in range(50)]   # churn
    return len(scratch)


def main(out):
    for n in range(100):
        handle(n)
    heapscope.snapshot(os.path.join(out, "1-baseline.pysnap"))
    for n in range(100, 300):
        handle(n)
    heapscope.snapshot(os.path.join(out, "2-target.pysnap"))
    for n in range(300, 500):
        handle(n)
    heapscope.snapshot(os.path.join(out, "3-final.pysnap"))


if __name__ == "__main__":
    main(sys.argv[1])
