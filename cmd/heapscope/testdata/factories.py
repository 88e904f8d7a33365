"""Two class factories that leak, for the tests of class selection and
class families: make_model builds classes with type() in a loop and keeps
them in a registry dict; make_handler runs a class statement in a
function and keeps the classes in a list of subclasses (CPython's own
record, Base.__subclasses__(), holds them only weakly). With "shared"
both keep their classes in the registry.

Usage: factories.py OUTDIR apart|shared [values|novalues]
Writes OUTDIR/a.pysnap after 50 rounds, b after 100 more, c after 100
more, and prints what it made as JSON.
"""
import json
import sys

import heapscope


class Base:
    pass


class Plugin:
    pass


REGISTRY = {}
SUBCLASSES = []
shared = sys.argv[2] == "shared"
values = len(sys.argv) < 4 or sys.argv[3] == "values"


def make_model(i):
    cls = type("Model_%d" % i, (Base,), {"n": i})
    REGISTRY[cls.__name__] = cls
    return cls


def make_handler(i):
    class Handler(Plugin):
        n = i
    if shared:
        REGISTRY["h%d" % i] = Handler
    else:
        SUBCLASSES.append(Handler)
    return Handler


made = {"models": [], "handlers": []}


def work(start, k):
    for i in range(start, start + k):
        made["models"].append(make_model(i).__qualname__)
        made["handlers"].append(make_handler(i).__qualname__)


out = sys.argv[1]
counts = []
for name, (start, k) in zip("abc", [(0, 50), (50, 100), (150, 100)]):
    work(start, k)
    counts.append(len(made["models"]))
    heapscope.snapshot("%s/%s.pysnap" % (out, name), values=values)
print(json.dumps({
    "module": __name__,
    "model_name": make_model.__module__ + "." + made["models"][17],
    "handler_name": make_handler.__module__ + "." + made["handlers"][0],
    "counts": counts,
}))
