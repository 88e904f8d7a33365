"""Objects made at the start, some of which get a list set lazily on
first use, and a record appended to that list every round they are used
again: the list is set once per object, yet what it holds grows with
the work. With `clean`, the list is set once, with the round's record,
and never appended to: nothing grows after it is set.

Every round uses one of the 50 Accounts made at the start, an even one
(25 of them), in turn. The first snapshot is taken before any round, the
second after 25 rounds (each even Account has its list, with one record
in it), the third after 50 more (three records each, with `clean` still
one).

Usage: lazylog.py OUTDIR [clean]
Writes OUTDIR/a.pysnap, b.pysnap and c.pysnap, and prints as JSON how
many Accounts had a list and how many records the lists held at each
snapshot.
"""
import gc
import json
import sys

import heapscope

CLEAN = sys.argv[2:] == ["clean"]


class Account:
    def __init__(self, n):
        self.n = n


class Record:
    def __init__(self, i):
        self.round = i
        self.note = "round %d" % i


ACCOUNTS = [Account(n) for n in range(50)]


def work(lo, hi):
    for i in range(lo, hi):
        a = ACCOUNTS[(2 * i) % len(ACCOUNTS)]
        history = getattr(a, "history", None)
        if history is None:
            a.history = [Record(i)]
        elif not CLEAN:
            history.append(Record(i))


def lists():
    return [a.history for a in ACCOUNTS if hasattr(a, "history")]


made = {"lists": [], "records": []}
n = 0
for name, k in zip("abc", (0, 25, 50)):
    work(n, n + k)
    n += k
    made["lists"].append(len(lists()))
    made["records"].append(sum(len(h) for h in lists()))
    gc.collect()
    heapscope.snapshot("%s/%s.pysnap" % (sys.argv[1], name))
json.dump(made, sys.stdout)
