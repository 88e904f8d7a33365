"""A loop that leaks Record objects from one line (remember), and makes
other objects that do not grow at every step: Churn objects, as many
as each round needs (more, then fewer), Once objects made in one round
only, and a Table (a dict subclass, which cannot be watched) per round.
It takes its own snapshots after each of six rounds (SIGUSR2 to itself),
for heapscope run --signal SIGUSR2, and goes on only once each is done,
as a program between two snapshots of run --every would; after the last
it exits at once."""
import glob
import os
import signal
import sys
import time


class Record:
    def __init__(self, i):
        self.i = i


class Churn:
    pass


class Once:
    pass


class Table(dict):
    pass


kept = []
churn = []
once = []
tables = []


def remember(i):
    kept.append(Record(i))  # the leaking allocation


def snapshot(out, n):
    os.kill(os.getpid(), signal.SIGUSR2)
    # A fork capture's child writes the file; the program learns what it
    # counted when the child has ended.
    deadline = time.monotonic() + 120
    while len(glob.glob(os.path.join(out, "*-signal.pysnap"))) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    from heapscope import _fork
    _fork.wait_all(120)


out = sys.argv[1]
for n, k in enumerate((40, 10, 80, 20, 60, 30), 1):
    for i in range(300):
        remember(i)
    churn[:] = [Churn() for _ in range(k)]
    if n == 2:
        once.extend(Once() for _ in range(100))
    tables.append(Table(n=n))
    if n < 6:
        snapshot(out, n)
    else:
        # The last: the program exits while the child still walks; what
        # it counted comes when the classes were unwatched at exit, and
        # must not watch them again.
        os.kill(os.getpid(), signal.SIGUSR2)
