"""A traced program's snapshot, with how much of tracemalloc's state the
capture changed: prints {"path", "addr", "line", "file", "blocks",
"traced", "tables", "after"}, the growth of the traced blocks, of the
traced memory and of tracemalloc's own tables across the snapshot, and
whether an object made after it is traced again. argv[2] "hooked": a hook
of the program's sits on top of tracemalloc's (its functions, with a ctx
of its own that holds a copy of the allocator they call), which the
agent must not set aside."""
import ctypes
import gc
import json
import os
import sys
import tracemalloc
import _tracemalloc

import heapscope

tracemalloc.start(25)


class Plain:
    def __init__(self, i):
        self.i = i


class Slotted:         # no managed dict: 3.11's _get_object_traceback finds it
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


keep = [{"a": [i, str(i)], "p": Plain(i)} for i in range(8000)]
mark = Plain(-1)                                    # LINE mark
gc.collect()


class Alloc(ctypes.Structure):
    _fields_ = [("ctx", ctypes.c_void_p), ("malloc", ctypes.c_void_p), ("calloc", ctypes.c_void_p),
                ("realloc", ctypes.c_void_p), ("free", ctypes.c_void_p)]


get = ctypes.pythonapi.PyMem_GetAllocator
get.argtypes = (ctypes.c_int, ctypes.POINTER(Alloc))
set_ = ctypes.pythonapi.PyMem_SetAllocator
set_.argtypes = (ctypes.c_int, ctypes.POINTER(Alloc))
hooked = sys.argv[2] == "hooked"
if hooked:
    mine, theirs = Alloc(), Alloc()
    get(1, ctypes.byref(theirs))
    mine_saved = Alloc.from_buffer_copy(ctypes.string_at(theirs.ctx, ctypes.sizeof(Alloc)))
    ctypes.pointer(mine)[0] = theirs
    mine.ctx = ctypes.addressof(mine_saved)
    set_(1, ctypes.byref(mine))


def state():
    return len(_tracemalloc._get_traces()), tracemalloc.get_traced_memory()[0], tracemalloc.get_tracemalloc_memory()


before = state()
path = heapscope.snapshot(os.path.join(sys.argv[1], "s.pysnap"))
after = state()
fresh = Slotted(0)
traced_after = tracemalloc._get_object_traceback(fresh) is not None and tracemalloc.is_tracing()
if hooked:
    set_(1, ctypes.byref(theirs))
with open(__file__) as f:
    line = [n for n, text in enumerate(f, 1) if "# LINE mark" in text][0]
print(json.dumps({"path": path, "addr": id(mark), "line": line, "file": os.path.abspath(__file__),
                  "blocks": after[0] - before[0], "traced": after[1] - before[1],
                  "tables": after[2] - before[2], "after": traced_after}))
