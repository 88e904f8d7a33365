"""A program for bench/python/ROOTS.md: imports the modules named as
arguments after the snapshot path (none for a bare interpreter), plants a
reference leaked with Py_IncRef (a list holding a 1 MiB bytearray, which
nothing in the heap refers to) if --leak is given, and takes a snapshot.

    python3 bench/python/roots.py OUT.pysnap [--leak] [MODULE...]
"""
import ctypes
import importlib
import sys

import heapscope

for name in sys.argv[2:]:
    if name != "--leak":
        importlib.import_module(name)
if "--leak" in sys.argv[2:]:
    leak = [bytearray(1 << 20)]
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(leak))
    print("leak at %#x" % id(leak))
    del leak
heapscope.snapshot(sys.argv[1])
