"""A clean sympy workload: it expands, differentiates and integrates new
expressions in rounds and keeps none of them. sympy's caches (cacheit: lru_caches of
maxsize 1,000) fill as it runs, and sympy computes the assumptions of
the numbers it caches on first use; nothing grows with the work.

Usage: sympyclean.py OUTDIR
Writes OUTDIR/a.pysnap after 100 expressions, b after 200 more and c
after 200 more.
"""
import gc
import sys

import sympy

import heapscope

x, y = sympy.symbols("x y")


def work(lo, hi):
    for i in range(lo, hi):
        e = sympy.expand((x + i * y) ** 3)
        sympy.diff(e * sympy.sin(x), x)
        sympy.integrate(x ** (i % 5 + 1) * i, x)


n = 0
for name, k in zip("abc", (100, 200, 200)):
    work(n, n + k)
    n += k
    gc.collect()
    heapscope.snapshot("%s/%s.pysnap" % (sys.argv[1], name))
