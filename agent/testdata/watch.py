"""Watches classes' allocations (heapscope.watch) and takes snapshots:
prints {"paths", "file", "refused": {name: reason}, "objects": [[addr,
want]], "agent": [the addresses of the watch's own objects], "deep":
[address, line, caller's line] of an object made deep in a library},
want being [[function, line], ...] innermost first, or [] for
an object that must have no site. Instances made by two functions, half
of them freed and their memory reused by an unwatched class of the same
size; instances made before the watch, by copy.copy, by a thread, and
of a class unwatched before the snapshot; two threads making
instances at once, with compactions; a stress of collections run
inside the hook (threshold 1) on every watchable kind of base. A
stop-the-world snapshot and a fork one (fork=True, where there is
os.fork)."""
import collections
import copy
import gc
import json
import os
import sys
import threading

import heapscope

LINES = {}
with open(__file__) as f:
    for n, text in enumerate(f, 1):
        if "# LINE " in text:
            LINES[text.split("# LINE ")[1].strip()] = n


class Plain:
    def __init__(self, i):
        self.i = i


class Twin:            # the same size as Plain: reuses its freed memory
    def __init__(self, i):
        self.i = i


class Slotted:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


class Failure(Exception):
    pass


class Count(int):
    pass


class Table(dict):
    pass


Pair = collections.namedtuple("Pair", "a b")

# A C extension's class without a traversal (functools' lru_cache list
# element, a heap type from 3.10 on), found from object's subclasses.
_todo, _c_class = [object], []
while _todo:
    for _c in type.__subclasses__(_todo.pop()):
        _todo.append(_c)
        if _c.__name__ == "_lru_list_elem" and _c.__flags__ & (1 << 9):
            _c_class.append(_c)

before = Plain(-1)
refused = heapscope.watch(Plain, Slotted, Failure, Count, Table, Pair, dict, *_c_class, frames=3)
assert heapscope.watch(Plain, frames=3) == []    # a second time: nothing refused, nothing doubled


def make_a(i):
    return Plain(i)                                   # LINE a


def make_b(i):
    return Plain(i)                                   # LINE b


def build():
    out = []
    for i in range(400):
        out.append(make_a(i) if i % 2 else make_b(i))  # LINE build
    return out


objs = build()                                        # LINE module

# Made deep in a library (a file under site-packages), past the 3
# frames noted: the program's frame further out and its caller are
# noted too.
_lib = os.path.join(sys.argv[1], "site-packages")
os.makedirs(_lib, exist_ok=True)
with open(os.path.join(_lib, "deeplib.py"), "w") as f:
    f.write("def make(cls, depth):\n    if depth:\n        return make(cls, depth - 1)\n    return cls(0)\n")
sys.path.insert(0, _lib)
import deeplib


def make_deep():
    return deeplib.make(Plain, 10)                    # LINE deep


deep = make_deep()                                    # LINE deepmodule
del objs[::2]                                         # frees the make_b ones
twins = [Twin(i) for i in range(200)]                 # in their memory
objs += [make_b(i) for i in range(100)]               # LINE again

# Collections inside the hook, on every kind of base it accepts.
gc.set_threshold(1)
stress = []
for i in range(3000):
    stress.append(Failure("x%d" % i))
    stress.append(Count(i))
    stress.append(Slotted(i))
gc.set_threshold(700)
assert stress[3].args == ("x1",) and stress[4] == 1 and stress[5].i == 1
stress = None

# Two threads making instances of one class from two functions, with
# switches as often as the interpreter allows: 80,000 allocations, so
# that the noted pairs are compacted while both append.
def make_t1(i):
    return Plain(i)                                   # LINE t1


def make_t2(i):
    return Plain(i)                                   # LINE t2


kept = {1: [], 2: []}


def churn(k, make):
    for i in range(40000):
        o = make(i)                                   # LINE churn
        if i % 200 == 0:
            kept[k].append(o)


sys.setswitchinterval(1e-6)
ths = [threading.Thread(target=churn, args=(1, make_t1)), threading.Thread(target=churn, args=(2, make_t2))]
for th in ths:
    th.start()
for th in ths:
    th.join()
sys.setswitchinterval(0.005)

copied = copy.copy(objs[0])
made_by_thread = []
th = threading.Thread(target=lambda: made_by_thread.append(make_a(7)))  # LINE thread
th.start()
th.join()
gone = Slotted(3)
heapscope.unwatch(Slotted)
gone_after = Slotted(4)
table = Table(a=1)
pair = Pair(1, 2)

F = os.path.abspath(__file__)
want = []
for n, o in enumerate(objs):
    if n < 200:   # the odd ones of build()
        want.append([id(o), [["make_a", LINES["a"]], ["build", LINES["build"]]]])
    else:
        outer = "<listcomp>" if sys.version_info < (3, 12) else "<module>"
        want.append([id(o), [["make_b", LINES["b"]], [outer, LINES["again"]]]])
for k, fn in ((1, "make_t1"), (2, "make_t2")):
    for o in kept[k]:
        want.append([id(o), [[fn, LINES["t%d" % k]], ["churn", LINES["churn"]]]])
for o in twins + [before, gone, gone_after, table, pair]:
    want.append([id(o), []])
want.append([id(made_by_thread[0]), [["make_a", LINES["a"]], ["<lambda>", LINES["thread"]]]])
want.append([id(copied), "copy"])
# The watch's own objects, which the snapshots must not list: its
# callbacks, its table of addresses and its state.
from heapscope import _own, _watch
agent = [id(o) for o in _own.HELD] + [id(_watch._state), id(_watch._state.pairs), id(_watch._state.stacks)]
agent += [id(s) for s in _watch._state.stacks.values()]
paths = [heapscope.snapshot(os.path.join(sys.argv[1], "stw.pysnap"))]
if hasattr(os, "fork"):
    paths.append(heapscope.snapshot(os.path.join(sys.argv[1], "fork.pysnap"), fork=True))
heapscope.unwatch()
# What the interpreter's exit does: after it, nothing is watched again.
_watch._close()
closed = [why for _, why in _watch.watch([Plain])]
print(json.dumps({"paths": paths, "file": F,
                  "refused": {t.__name__: why for t, why in refused}, "objects": want, "agent": agent,
                  "deep": [id(deep), LINES["deep"], LINES["deepmodule"]], "closed": closed}))
