"""Leaks exactly 7 Leaked objects per loop iteration, with churn beside
them; writes before.pysnap and after.pysnap (30 iterations apart) into
the directory given as its argument."""
import os
import sys

import heapscope


class Leaked:
    pass


class Churn:
    pass


kept = []


def step():
    for _ in range(7):
        kept.append(Leaked())
    tmp = [Churn() for _ in range(50)]
    return len(tmp)


for _ in range(5):
    step()
heapscope.snapshot(os.path.join(sys.argv[1], "before.pysnap"))
for _ in range(30):
    step()
heapscope.snapshot(os.path.join(sys.argv[1], "after.pysnap"))
