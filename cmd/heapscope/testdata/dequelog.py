"""A Python program that appends an event to three deques each round: a
log with a maxlen it does not reach (filling), a list of recent events
with a maxlen it passes (full: each append pushes out the oldest), and
a history without one (a leak). It writes three snapshots into the
directory given as its first argument, after 300, 600 and 900 rounds;
with "fork" or "novalues" after it, they are fork captures or taken
with values=False. Prints one JSON line: the maxlens."""
import collections
import json
import os
import sys
import time

import heapscope
from heapscope import _fork


class Event:
    def __init__(self, i):
        self.i = i
        self.payload = [i] * 8


log = collections.deque(maxlen=5000)
recent = collections.deque(maxlen=500)
history = collections.deque()


def handle(i):
    log.append(Event(i))
    recent.append(Event(i))
    history.append(Event(i))


def snapshot(path, fork, values):
    heapscope.snapshot(path, fork=fork, values=values)
    end = time.time() + 120
    while (not os.path.exists(path) or _fork.running()) and time.time() < end:
        time.sleep(0.02)


def main(out, opts):
    for n, name in ((300, "baseline"), (600, "target"), (900, "final")):
        while len(history) < n:
            handle(len(history))
        snapshot(os.path.join(out, name + ".pysnap"), "fork" in opts, "novalues" not in opts)
    print(json.dumps({"log": log.maxlen, "recent": recent.maxlen}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
