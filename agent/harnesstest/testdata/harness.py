"""Uses heapscope's leak-check harness on workloads: one that leaks
(also with its allocations traced), one with a bounded cache, one with a
cache that fills once, one with an lru_cache still filling up to its
maxsize, one that leaks while it fills that cache, and one whose lists,
set on first use, grow once set. Prints one JSON
line per workload: whether a LeakError was raised, and its text."""
import functools
import json
import sys
from collections import OrderedDict

from heapscope.leakcheck import LeakCheck, LeakError, assert_no_leaks

registry = {}


class Session:
    def __init__(self, n):
        self.n = n
        self.data = bytearray(256)


def leaky():
    registry[len(registry)] = Session(len(registry))  # the leaking line


lru = OrderedDict()


def bounded():
    lru[len(lru) + 1000 * len(registry)] = Session(0)
    while len(lru) > 10:
        lru.popitem(last=False)


filled = {}


def fill_once():
    if len(filled) < 30:
        filled[len(filled)] = Session(len(filled))


@functools.lru_cache(maxsize=1000)
def render(n):
    return Session(n)


calls = [0]


def filling():
    calls[0] += 1
    render(calls[0])


def leaky_filling():
    leaky()
    filling()


class Account:
    pass


class Entry:
    pass


accounts = [Account() for _ in range(50)]
log = []
lazy_calls = [0]


def lazy_history():
    """Until the check's first snapshot (warmup 2, then counts after 40
    and 80 more calls) a log grows; then a history list is set on first
    use on one account per call, and once each of 40 accounts has one,
    each call appends to one of them: what the lists hold grows, the
    lists do not."""
    k = lazy_calls[0]
    lazy_calls[0] += 1
    if k < 82:
        log.append(Entry())
    elif k < 122:
        accounts[k - 82].history = [Entry()]
    else:
        accounts[(k - 122) % 40].history.append(Entry())


def report(name, fn, **kw):
    try:
        assert_no_leaks(fn, **kw)
        print(json.dumps({"name": name, "leak": False}))
    except LeakError as e:
        print(json.dumps({"name": name, "leak": True, "text": str(e)}))


report("leaky", leaky, iterations=40, warmup=2)
report("traced", leaky, iterations=40, warmup=2, trace_alloc=2)
report("bounded", bounded, iterations=40, warmup=2)
report("fill_once", fill_once, iterations=40, warmup=2)
report("filling", filling, iterations=40, warmup=2)
report("leaky_filling", leaky_filling, iterations=40, warmup=2)
report("lazy_history", lazy_history, iterations=40, warmup=2)

# The context-manager form.
try:
    with LeakCheck(iterations=40, warmup=2) as check:
        for _ in check:
            leaky()
    print(json.dumps({"name": "context", "leak": False}))
except LeakError as e:
    print(json.dumps({"name": "context", "leak": True, "text": str(e)}))
