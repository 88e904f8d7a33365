# No key of the program's is ever hashed or compared by the agent. For
# every name the agent's code holds (and the names CPython looks up for
# it), a Collider has the same hash; colliders sit in the dicts a capture
# may read, first where the program can put them first (a class
# namespace, an instance's and a module's __dict__, a frame's locals)
# and after the other keys elsewhere (sys.modules, builtins, sys, ...),
# where only a lookup of a missing name would meet them. While armed, a
# Collider records and raises when compared or hashed.
import builtins
import gc
import json
import os
import sys
import threading
import types

import heapscope

calls = []
armed = [False]


class Collider:
    __slots__ = ("name", "h")

    def __init__(self, name):
        self.name = name
        self.h = hash(name)

    def __hash__(self):
        if armed[0]:
            calls.append("hash " + self.name)
            raise RuntimeError("a collider was hashed")
        return self.h

    def __eq__(self, other):
        if armed[0]:
            calls.append("eq " + self.name)
            raise RuntimeError("a collider was compared")
        return NotImplemented

    __ne__ = __eq__


def code_names(code, out):
    out.update(code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars)
    for c in code.co_consts:
        if type(c) is str:
            out.add(c)
        elif type(c) is types.CodeType:
            code_names(c, out)


names = set()
pkg = os.path.dirname(heapscope.__file__)
for fn in sorted(os.listdir(pkg)):
    if fn.endswith(".py"):
        with open(os.path.join(pkg, fn)) as f:
            code_names(compile(f.read(), fn, "exec"), names)
code_names(compile(open(__file__).read(), __file__, "exec"), names)
# What CPython looks up for the agent: special methods, module and
# attribute names.
names.update(["__sizeof__", "__getattribute__", "__getattr__", "__dict__", "__module__",
              "__slots__", "__static_attributes__", "__weakref__", "__class__", "_name",
              "_active", "threading", "numpy", "ndarray", "hasobject", "base", "dtype",
              "__fspath__", "payload", "other", "items"])
names = sorted(n for n in names if type(n) is str)


class Prep(type):
    @classmethod
    def __prepare__(mcls, name, bases):
        return {Collider(n): None for n in names}


class Victim(metaclass=Prep):
    def __init__(self):
        self.payload = [1, 2]
        self.other = {"k": 1}

    def describe(self):
        return self.payload, self.other


class VictimThread(threading.Thread, metaclass=Prep):
    pass


class Plain:
    def __init__(self):
        self.payload = [3]


def colliders():
    return {Collider(n): None for n in names}


victims = [Victim() for _ in range(50)]
plain_dicts = []
for _ in range(20):
    # An instance whose __dict__ holds colliders before its attribute.
    o = Plain.__new__(Plain)
    d = vars(o)
    d.update(colliders())
    d["payload"] = [4]
    plain_dicts.append(o)
    # And one whose attribute came first.
    p = Plain()
    vars(p).update(colliders())
    plain_dicts.append(p)
mod = types.ModuleType("victim_mod")
vars(mod).update(colliders())
vars(mod)["payload"] = [5]
sys.modules["victim_mod"] = mod


class DictSub(dict):
    pass


dsub = DictSub(colliders())
dplain = colliders()
stop = threading.Event()
vt = VictimThread(target=stop.wait, name="victim")
vt.start()
polluted = [sys.modules, vars(builtins), vars(sys), vars(gc), vars(os), vars(threading)]
try:
    import numpy
    polluted.append(vars(numpy))
except ImportError:
    pass
added = []
for dct in polluted:
    for n in names:
        c = Collider(n)
        dct[c] = None
        added.append((dct, c))
threading._active[Collider("tid")] = vt   # a key of the wrong type
results = {}


def run(path):
    local_payload = Victim()
    loc = locals()   # 3.12 and earlier: the frame's own f_locals dict
    loc.update(colliders())
    armed[0] = True
    try:
        results["full"] = heapscope.snapshot(path)
        results["novalues"] = heapscope.snapshot(path + ".nv", values=False)
        results["census"] = heapscope.snapshot(path + ".census", edges=False)
    except BaseException as e:
        results["raised"] = type(e).__name__
    armed[0] = False
    return local_payload


run(os.path.join(sys.argv[1], "c.pysnap"))
for dct, c in added:
    del dct[c]
for k in [k for k in threading._active if type(k) is Collider]:
    del threading._active[k]
stop.set()
vt.join()
results["calls"] = calls[:20]
results["names"] = len(names)
results["victim"] = id(victims[0])
results["victim_payload"] = id(victims[0].payload)
print(json.dumps(results))
