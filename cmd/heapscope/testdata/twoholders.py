"""A plugin system's leak: one class per plugin name, made with type()
and kept in the program's cache, _plugins; the metaclass also records
every class in its registry, PluginMeta.registry. Either alone keeps the
classes alive: clearing the cache frees nothing.

Usage: twoholders.py OUTDIR
Writes OUTDIR/a.pysnap after 10 rounds, b after 40 more, c after 40
more; each round makes a class of each of the families reader_*,
writer_*.
"""
import sys

import heapscope


class PluginMeta(type):
    registry = []

    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        PluginMeta.registry.append(cls)


class Plugin(metaclass=PluginMeta):
    pass


_plugins = {}


def plugin(name):
    cls = _plugins.get(name)
    if cls is None:
        cls = PluginMeta(name, (Plugin,), {"__module__": __name__})
        _plugins[name] = cls
    return cls


rounds = 0


def work(k):
    global rounds
    for i in range(rounds, rounds + k):
        for base in ("reader", "writer"):
            plugin("%s_%d" % (base, i))()
    rounds += k


out = sys.argv[1]
for name, k in zip("abc", (10, 40, 40)):
    work(k)
    heapscope.snapshot(out + "/" + name + ".pysnap")
