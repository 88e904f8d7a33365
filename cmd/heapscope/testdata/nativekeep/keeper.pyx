# cython: language_level=3
"""keeper: a Cython extension that keeps, in a C struct, a reference to a
memoryview of every buffer it is given, and never releases them (the
bug): the views, and the numpy arrays behind them, stay alive with no
reference to them in the Python heap."""
from cpython.ref cimport PyObject, Py_INCREF

cdef struct Slot:
    PyObject* view
    Py_ssize_t nbytes

cdef Slot slots[4096]
cdef int used = 0


def keep(obj):
    """Registers obj's buffer: a memoryview of it goes into a slot."""
    global used
    if used >= 4096:
        raise MemoryError("no slot left")
    mv = memoryview(obj)
    Py_INCREF(mv)
    slots[used].view = <PyObject*>mv
    slots[used].nbytes = mv.nbytes
    used += 1
    return used
