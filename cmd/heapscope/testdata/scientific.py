"""scientific.py SNAP [leak]: a small numerical and symbolic program
with numpy and sympy, that keeps only its results; with "leak", each
step also appends its workspace (a dict of arrays and expressions) to a
module-level history that nothing reads. Then a snapshot."""
import sys

import numpy as np
import sympy as sp

import heapscope

HISTORY = []


def step(k, leak):
    x = np.linspace(0, 1, 20000)
    y = np.sin(x * k) / (k + 1)
    t = sp.Symbol("t")
    expr = sp.expand((t + k) ** 3)
    if leak:
        HISTORY.append({"x": x.copy(), "y": y, "expr": expr, "k": k})
    return float(y.sum()), sp.diff(expr, t)


results = [step(k, len(sys.argv) > 2 and sys.argv[2] == "leak") for k in range(60)]
heapscope.snapshot(sys.argv[1])
