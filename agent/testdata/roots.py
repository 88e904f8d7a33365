# (h) What the interpreter holds, and what gc.get_referents does not
# show: code objects' contents, descriptors' names, classes' records of
# their subclasses, static types' dicts, the interpreter state, interned
# strs, and a reference leaked with Py_IncRef.
import ctypes
import gc
import json
import sys
import warnings

import heapscope


def outer(a):
    s = "a constant of outer's code, long enough not to be shared"

    def inner():
        return a
    return s, inner


class Base:
    pass


class Derived(Base):
    pass


name = sys.intern("".join(["heapscope", "_interned_probe"]))
names = [name, name]                          # three references: interned
plain = "".join(["heapscope", "_plain_probe"])
plains = [plain, plain]                       # three references: not interned

leak = [bytearray(1 << 20)]                  # a list: gc lists it
ctypes.pythonapi.Py_IncRef(ctypes.py_object(leak))   # the leaked reference
leak_addr = id(leak)
del leak

# Held outside the heap and by this module too: its path is the module's.
shared = [bytearray(1 << 16)]
ctypes.pythonapi.Py_IncRef(ctypes.py_object(shared))

consts = outer.__code__.co_consts
const = [c for c in consts if type(c) is str and c.startswith("a constant")][0]
nested = [c for c in consts if type(c) is type(outer.__code__)][0]
heapscope.snapshot(sys.argv[1])
print(json.dumps({
    "outer": id(outer), "code": id(outer.__code__), "consts": id(consts), "const": id(const),
    "nested": id(nested),
    "filename": outer.__code__.co_filename,
    "join": id(str.__dict__["join"]), "str": id(str), "int": id(int), "int_dict": id(gc.get_referents(int.__dict__)[0]),
    "base": id(Base), "derived": id(Derived), "filters": id(warnings.filters), "modules": id(sys.modules),
    "name": id(name), "plain": id(plain), "leak": leak_addr,
    "shared": id(shared), "shared_bytes": id(shared[0]),
}))
