"""sympy makes a class per undefined function: Function("f_17") is a
class of the metaclass UndefinedFunction, and sympy keeps every class it
makes in sympy.core.core.all_classes. This program makes some, applies
and differentiates them, and snapshots the heap.

Usage: sympyclasses.py OUTDIR
Writes OUTDIR/a.pysnap after 20 functions, b after 60 more, c after 60
more, and prints the counts as JSON.
"""
import json
import sys

import sympy

import heapscope

x = sympy.Symbol("x")
made = 0


def work(k):
    global made
    for i in range(made, made + k):
        f = sympy.Function("f_%d" % i)
        f(x).diff(x)
    made += k


counts = []
for name, k in zip("abc", (20, 60, 60)):
    work(k)
    counts.append(made)
    heapscope.snapshot("%s/%s.pysnap" % (sys.argv[1], name))
print(json.dumps({"counts": counts}))
