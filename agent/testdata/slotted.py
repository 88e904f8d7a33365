# (j) Instances of classes with __slots__ and of dict subclasses, many of
# each class (their edges are made a class at a time): what each instance
# holds, read directly, is the oracle for its edges.
import json
import sys

import heapscope


class A:
    __slots__ = ("x", "y")


class B(A):
    __slots__ = ("z",)


class C(B):
    __slots__ = ("__dict__", "w")   # slots and a dict


class D(dict):
    pass


class E(dict):
    __slots__ = ("s",)


objs = []
for i in range(300):
    a = A()
    a.x = [i]
    if i % 3:
        a.y = str(i) * 3                 # y left empty in a third of them
    b = B()
    b.z = (i, [i])
    if i % 2:
        b.x = {"i": i}                   # x empty in half of them
    b.y = a
    c = C()
    c.w = [i]
    c.x = b
    c.extra = [i, i]
    d = D(first=[i], second=str(i) * 2)
    if i % 2:
        d.attr = [i]                     # an instance dict in half of them
    e = E(key=[i])
    e.s = (i, [i])
    objs += [a, b, c, d, e]

oracle = []
for o in objs:
    t = type(o)
    edges = [["__class__", id(t)]]
    if isinstance(o, dict):
        edges += [["['%s']" % k, id(v)] for k, v in dict.items(o)]
        if "__dict__" in dir(o) and getattr(o, "__dict__", None):
            edges.append(["__dict__", id(o.__dict__)])
    for c in t.__mro__:
        for s in c.__dict__.get("__slots__", ()):
            if s != "__dict__" and hasattr(o, s):
                edges.append(["." + s, id(getattr(o, s))])
    oracle.append([id(o), t.__name__, edges])
heapscope.snapshot(sys.argv[1])
print(json.dumps(oracle))
