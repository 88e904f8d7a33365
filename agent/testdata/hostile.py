# (b) Objects whose special methods raise or have side effects. Taking a
# snapshot must not call any of them.
import json
import sys
import weakref

import heapscope

log = []
armed = [False]


class Trap(Exception):
    pass


def hit(name):
    """Once armed, every call is logged and raises."""
    if armed[0]:
        log.append(name)
        raise Trap(name)


class Meta(type):
    def __getattribute__(cls, name):
        hit("Meta.__getattribute__ " + name)
        return type.__getattribute__(cls, name)

    def __getattr__(cls, name):
        hit("Meta.__getattr__ " + name)
        raise AttributeError(name)

    def __instancecheck__(cls, o):
        hit("Meta.__instancecheck__")
        return False

    def __subclasscheck__(cls, o):
        hit("Meta.__subclasscheck__")
        return False

    def __repr__(cls):
        hit("Meta.__repr__")
        return "Meta!"

    def __eq__(cls, o):
        hit("Meta.__eq__")
        return False

    def __hash__(cls):
        hit("Meta.__hash__")
        return 1

    def __len__(cls):
        hit("Meta.__len__")
        return 0

    def __iter__(cls):
        hit("Meta.__iter__")
        return iter(())

    def __sizeof__(cls):
        hit("Meta.__sizeof__")
        return 1

    def mro(cls):
        return type.mro(cls)


class Hostile(metaclass=Meta):
    def __init__(self):
        object.__setattr__(self, "payload", [1, 2, 3])

    def __getattribute__(self, name):
        hit("__getattribute__ " + name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        hit("__getattr__ " + name)
        raise AttributeError(name)

    def __eq__(self, o):
        hit("__eq__")
        return self is o

    def __hash__(self):
        hit("__hash__")
        return 12345

    def __repr__(self):
        hit("__repr__")
        return "Hostile()"

    __str__ = __repr__

    def __sizeof__(self):
        hit("__sizeof__")
        raise RuntimeError("no sizeof")

    def __iter__(self):
        hit("__iter__")
        raise RuntimeError("no iter")

    def __len__(self):
        hit("__len__")
        raise RuntimeError("no len")

    def __bool__(self):
        hit("__bool__")
        raise RuntimeError("no bool")

    def __del__(self):
        pass

    @property
    def prop(self):
        hit("prop")
        raise RuntimeError("no property")

    @property
    def __class__(self):
        hit("__class__")
        raise RuntimeError("no __class__")

    @property
    def __dict__(self):
        hit("__dict__")
        raise RuntimeError("no __dict__")


class Slotted:
    __slots__ = ("a", "b", "__weakref__")

    def __getattribute__(self, name):
        hit("Slotted.__getattribute__ " + name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        hit("Slotted.__getattr__ " + name)
        raise RuntimeError("no")

    def __sizeof__(self):
        hit("Slotted.__sizeof__")
        return 10


class HStr(str):
    def __hash__(self):
        hit("HStr.__hash__")
        return 7

    def __eq__(self, o):
        hit("HStr.__eq__")
        return False

    def __repr__(self):
        hit("HStr.__repr__")
        return "x"


class HDict(dict):
    def __iter__(self):
        hit("HDict.__iter__")
        raise RuntimeError("no")

    def items(self):
        hit("HDict.items")
        raise RuntimeError("no")

    def keys(self):
        hit("HDict.keys")
        raise RuntimeError("no")

    def __len__(self):
        hit("HDict.__len__")
        return 0

    def __getitem__(self, k):
        hit("HDict.__getitem__")
        raise RuntimeError("no")


class HList(list):
    def __iter__(self):
        hit("HList.__iter__")
        raise RuntimeError("no")

    def __len__(self):
        hit("HList.__len__")
        return 0

    def __getitem__(self, i):
        hit("HList.__getitem__")
        raise RuntimeError("no")


class HRef(weakref.ref):
    def __call__(self):
        hit("HRef.__call__")
        raise RuntimeError("no")


class HModule(type(sys)):
    def __getattribute__(self, name):
        hit("HModule.__getattribute__ " + name)
        raise RuntimeError("no")

    def __getattr__(self, name):
        hit("HModule.__getattr__ " + name)
        raise RuntimeError("no")


h = Hostile()
s = Slotted.__new__(Slotted)
object.__setattr__(s, "a", [4, 5])
hk = HStr("key")
d = {h: "hostile key", hk: "hstr key", "plain": h}
hd = HDict()
dict.__setitem__(hd, "k", h)
dict.__setitem__(hd, hk, s)
hl = HList()
list.append(hl, h)
r = HRef(h)
mod = HModule("hostile_module")
sys.modules["hostile_module"] = mod
hostiles = [h, s, hk, d, hd, hl, r, mod, Hostile, Meta]
results = {}


class LoggingNS(dict):
    def __setitem__(self, k, v):
        hit("LoggingNS.__setitem__ " + k)
        dict.__setitem__(self, k, v)

    def __delitem__(self, k):
        hit("LoggingNS.__delitem__ " + k)
        dict.__delitem__(self, k)


class PrepMeta(type):
    @classmethod
    def __prepare__(mcls, name, bases):
        return LoggingNS()

    def __new__(mcls, name, bases, ns):
        return type.__new__(mcls, name, bases, dict(ns))


class WithBody(metaclass=PrepMeta):
    # A snapshot taken while this class body runs: its frame's namespace
    # is a LoggingNS, and the body has a cell (__class__, for super()).
    def m(self):
        return super().m
    armed[0] = True
    try:
        results["in_body"] = heapscope.snapshot(sys.argv[1] + ".body")
    except BaseException as e:
        results["raised"] = repr(type(e))
    armed[0] = False


armed[0] = True
try:
    results["path"] = heapscope.snapshot(sys.argv[1])
    results["path2"] = heapscope.snapshot(sys.argv[2], values=False, collect=False)
    results["census"] = heapscope.snapshot(sys.argv[2] + ".census", edges=False)
except BaseException as e:  # would be a bug: nothing may reach the host
    results["raised"] = repr(type(e))
armed[0] = False
results["log"] = list(log)
results["hostile_addr"] = id(h)
results["slotted_addr"] = id(s)
results["hdict_addr"] = id(hd)
print(json.dumps(results))
