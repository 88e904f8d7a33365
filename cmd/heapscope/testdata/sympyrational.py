"""A sympy workload with Rationals that keeps nothing, or, with `leak`,
one that keeps every product it makes in a list set lazily on objects
the baseline had and appended to for ever.

Each round expands and differentiates a new expression and multiplies a
new Rational by a power of x. sympy's lru_caches (maxsize 1,000) fill,
then evict, and make new entries at the addresses they freed: a new
Integer in a cache's slot, with the assumptions sympy computes on first
use, looks like the old one gaining them again. Nothing grows with the
work.

With `leak`, from round 100 on (after the first snapshot) each round
appends its product to the history of one of 50 Accounts made at the
start, setting that history (a list) on first use: a field set once on
objects the baseline had and appended to ever after, a leak in
proportion to the work.

Usage: sympyrational.py OUTDIR [leak]
Writes OUTDIR/a.pysnap after 100 rounds, b after 200 more and c after
200 more.
"""
import gc
import sys

import sympy

import heapscope

x, y = sympy.symbols("x y")
LEAK = sys.argv[2:] == ["leak"]


class Account:
    def __init__(self, n):
        self.n = n
        self.history = None


ACCOUNTS = [Account(n) for n in range(50)]


def work(lo, hi):
    for i in range(lo, hi):
        e = sympy.expand((x + i * y) ** 3)
        sympy.diff(e * sympy.sin(x), x)
        r = sympy.Rational(i, 7) * x ** (i % 5 + 1)
        if LEAK and i >= 100:
            a = ACCOUNTS[i % len(ACCOUNTS)]
            if a.history is None:
                a.history = []
            a.history.append(r)


n = 0
for name, k in zip("abc", (100, 200, 200)):
    work(n, n + k)
    n += k
    gc.collect()
    heapscope.snapshot("%s/%s.pysnap" % (sys.argv[1], name))
