# (d) Reference counts: an object held by exactly k references shows k.
import json
import sys

import heapscope


class Marker:
    pass


m1 = Marker()                      # k = 1: this global
m3 = Marker()
keep3 = [m3, m3]                   # k = 3: global + two list slots
f2 = float("2.5") * 3.0            # an untracked float
hold_f = (f2, f2, f2)              # k = 4: global + three tuple slots (tuple untracked after collect)
s5 = "".join(["refcount-", "probe"])  # a fresh str
hold_s = {"a": s5, "b": s5}        # k = 4: global + list below... see below
box = [s5]                         # k = 4: global s5, two dict values, one list slot
d2 = {"x": 1}                      # an untracked dict
hold_d = [d2]                      # k = 2


def inner():
    loc = Marker()                 # k = 1: the frame's local (the agent makes no f_locals dict)
    heapscope.snapshot(sys.argv[1])
    return id(loc)


loc_addr = inner()
print(json.dumps({"m1": [id(m1), 1], "m3": [id(m3), 3], "f2": [id(f2), 4], "s5": [id(s5), 4],
                  "d2": [id(d2), 2], "loc": [loc_addr, 1]}))
