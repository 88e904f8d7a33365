# Python classes, functions and modules that hold memory: a function
# attribute, a class attribute, a module-level registry in a module made
# at run time, and sympy's own cache of function results. It writes one
# snapshot to its argument and prints the addresses of what it made.
import json
import sys
import types

import heapscope
from sympy import symbols, sin, cos, simplify


def handler(x):
    return x


handler.cache = [bytearray(100_000) for _ in range(10)]


class Registry:
    pass


Registry.shared = [bytearray(100_000) for _ in range(6)]

plugins = types.ModuleType("plugins")
plugins.table = [bytearray(100_000) for _ in range(8)]
sys.modules["plugins"] = plugins

x = symbols("x")
simplify(sin(x) ** 2 + cos(x) ** 2)

heapscope.snapshot(sys.argv[1])
print(json.dumps({"handler": id(handler), "registry": id(Registry), "plugins": id(plugins)}))
