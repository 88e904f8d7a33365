"""A solver library's leak: one class per field name, made with type()
as a subclass of a sympy Function and kept in the program's own cache,
_SymbolCache. sympy's metaclass also records every such class in its
registry, sympy.core.core.all_classes, so the cache is one of two
holders: clearing it frees nothing. Applying and differentiating the
fields fills sympy's own caches (lru_caches of maxsize 1000), which are
bounded.

Usage: symholders.py OUTDIR
Writes OUTDIR/a.pysnap after 10 rounds, b after 40 more, c after 40 more
(each round makes a class of each of the families u_*, m_*, damp_*),
then d after clearing _SymbolCache, and prints what it made as JSON.
"""
import gc
import json
import sys

import sympy

import heapscope


class Field(sympy.Function):
    """A physical field u(x, t)."""


_SymbolCache = {}


def field(name):
    cls = _SymbolCache.get(name)
    if cls is None:
        cls = type(name, (Field,), {"__module__": __name__})
        _SymbolCache[name] = cls
    return cls


x, t = sympy.symbols("x t")
rounds = 0


def work(k):
    global rounds
    for i in range(rounds, rounds + k):
        for base in ("u", "m", "damp"):
            field("%s_%d" % (base, i))(x, t).diff(x)
    rounds += k


out = sys.argv[1]
for name, k in zip("abc", (10, 40, 40)):
    work(k)
    heapscope.snapshot(out + "/" + name + ".pysnap")
_SymbolCache.clear()
gc.collect()
heapscope.snapshot(out + "/d.pysnap")
print(json.dumps({"per_family": [10, 50, 90]}))
