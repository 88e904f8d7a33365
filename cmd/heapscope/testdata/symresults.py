"""A program's own leak beside sympy's bounded caches: every third
derivative it computes is kept in the module list `results` for good.
sympy caches the derivatives too (its cacheit: lru_caches of maxsize
1000), so the list is one of several holders of what leaks, and
removing it alone frees nothing now; but the caches are bounded, full
and evicting, and the list is the one that grows for good.

Usage: symresults.py OUTDIR
Writes OUTDIR/a.pysnap after 60 derivatives, b after 120 more, c after
120 more.
"""
import sys

import sympy

import heapscope

x, y = sympy.symbols("x y")
results = []
done = 0


def work(k):
    global done
    for i in range(done, done + k):
        e = (x + i % 50 + 1) ** (2 + i % 3) * (y - i)
        d = sympy.diff(sympy.expand(e), x)
        if i % 3 == 0:
            results.append(d)
    done += k


out = sys.argv[1]
for name, k in zip("abc", (60, 120, 120)):
    work(k)
    heapscope.snapshot(out + "/" + name + ".pysnap")
