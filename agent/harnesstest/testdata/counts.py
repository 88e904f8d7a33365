"""Runs leak checks whose counts decide, or send them on to snapshots:
a clean workload (decided after two counts), one whose objects grow in
the first interval only (decided after three), and two that grow at
every step where only a look inside untracked containers sees it (strs
added to a module-level dict of str to int, which CPython leaves
untracked, and a tuple of strs replaced by a longer one). Prints one
JSON line per workload: the runs, the counts of the types that grew
(null when snapshots were taken) and whether a leak was reported."""
import json

from heapscope.leakcheck import LeakCheck

WARMUP, ITER = 2, 10


class Item:
    pass


def clean():
    [Item() for _ in range(20)]


kept = []


def first_interval(check):
    if check.runs <= WARMUP + ITER:
        kept.append(Item())


names = {}


def untracked_dict():
    names["name %d" % len(names)] = len(names)


class Holder:
    t = ()


holder = Holder()


def untracked_tuple():
    holder.t = holder.t + ("item %d" % len(holder.t),)


for name, fn in (("clean", clean), ("first_interval", first_interval),
                 ("untracked_dict", untracked_dict), ("untracked_tuple", untracked_tuple)):
    check = LeakCheck(iterations=ITER, warmup=WARMUP, raise_on_leak=False, keep=False)
    with check:
        for _ in check:
            fn(check) if fn is first_interval else fn()
    r = check.report
    print(json.dumps({"name": name, "runs": check.runs, "counts": r.counts, "leak": not r.ok}))
