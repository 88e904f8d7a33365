"""Deques with and without a maxlen, for limits_test.go: the agent
records each deque's maxlen (LIMITS) without running the program's code,
with values on and off, in stop-the-world and fork captures.

    maxlen.py DIR

Writes DIR/world.pysnap, world-novalues.pysnap, fork.pysnap and
fork-novalues.pysnap, and prints one JSON line last: each deque's
address and maxlen (null: none), and the program's code the agent ran
(none).
"""

import collections
import json
import os
import sys
import time

import heapscope
from heapscope import _fork

out = sys.argv[1]
ran = []


class Ring(collections.deque):
    """A deque subclass that gives maxlen and its size its own way: the
    agent must read deque's C field, never call these."""

    @property
    def maxlen(self):
        ran.append("Ring.maxlen")
        return 1

    def __len__(self):
        ran.append("Ring.__len__")
        return 0

    def __getattribute__(self, name):
        ran.append("Ring.__getattribute__ " + name)
        return object.__getattribute__(self, name)


class Meta(type):
    """A metaclass that answers class checks and comparisons itself."""

    def __instancecheck__(cls, x):
        ran.append("Meta.__instancecheck__")
        return True

    def __subclasscheck__(cls, x):
        ran.append("Meta.__subclasscheck__")
        return True

    def __eq__(cls, other):
        ran.append("Meta.__eq__")
        return True

    def __hash__(cls):
        ran.append("Meta.__hash__")
        return 0

    def __getattribute__(cls, name):
        if name not in ("__mro__", "__name__", "__qualname__", "__module__", "__dict__"):
            ran.append("Meta.__getattribute__ " + name)
        return type.__getattribute__(cls, name)


class Watched(collections.deque, metaclass=Meta):
    pass


class Plain(collections.deque):
    pass


deques = {
    "bounded": collections.deque(range(10), maxlen=50),
    "full": collections.deque(range(100), maxlen=8),
    "zero": collections.deque(maxlen=0),
    "huge": collections.deque(maxlen=sys.maxsize),
    "unbounded": collections.deque(range(5)),
    "ring": Ring(range(3), 30),
    "watched": Watched([1], maxlen=7),
    "plain subclass": Plain([1, 2]),
}
# Enough to span chunks, each with its own maxlen.
many = [collections.deque((i,), maxlen=i + 1) for i in range(40000)]
for i, d in enumerate(many[:5]):
    deques["many %d" % i] = d
deques["many last"] = many[-1]


def wait_for(path, seconds=120):
    end = time.time() + seconds
    while (not os.path.exists(path) or _fork.running()) and time.time() < end:
        time.sleep(0.02)


ran.clear()
for name, fork, values in (("world", False, True), ("world-novalues", False, False),
                           ("fork", True, True), ("fork-novalues", True, False)):
    path = os.path.join(out, name + ".pysnap")
    heapscope.snapshot(path, fork=fork, values=values)
    wait_for(path)
calls = list(ran)
maxlens = {name: d.maxlen if type(d) is not Ring else collections.deque.maxlen.__get__(d)
           for name, d in deques.items()}
print(json.dumps({"addr": {name: id(d) for name, d in deques.items()}, "maxlen": maxlens,
                  "many": len(many), "ran": calls}))
