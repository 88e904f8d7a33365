"""Keeps tracemalloc from tracing the agent's own allocations while it
captures a traced program.

Private module of the heapscope agent. tracemalloc.start() saves the
allocators of the RAW, MEM and OBJ domains in one static struct
{mem, raw, obj} (3.9-3.11: Modules/_tracemalloc.c; 3.12-3.13:
_PyRuntime.tracemalloc.allocators, Python/tracemalloc.c) and installs
its hooks with PyMem_SetAllocator, each hook's ctx pointing at the saved
allocator of its domain; the hooks call the saved allocator, then add
or remove the block's trace. Every allocation gets a traceback of up to
N frames, so a capture that makes millions of objects of its own costs
many times more with tracemalloc on (issue 21).

pause() sets the MEM and OBJ domains to the allocators saved behind the
hooks, so that what the agent allocates meanwhile is not traced, while
tracemalloc.is_tracing() stays true and _get_object_traceback still
finds the traces of the program's objects; resume() puts the hooks back
exactly. What this leaves behind is what tracemalloc already handles
for blocks allocated before it started: a block allocated in the window
and freed or resized later goes through the hooks, whose free of a block
with no trace only frees it and whose realloc traces the new block. A
traced block freed in the window keeps its trace until its address is
traced again or freed again; the agent frees none of the program's
blocks, but on an in-process capture other threads of the program run
when the walk lets the interpreter lock go (file writes, the switch
interval): what they allocate in the window is not traced, and what
they free may leave a trace behind. A fork capture has neither: the
window is in the child, which has one thread and is thrown away; there
the RAW domain (used without the interpreter lock, so left alone in the
program) is swapped too.

It swaps only what it recognizes as tracemalloc's own hooks, on top of
every other hook: the hooks are code of the interpreter's own object
(libpython, or the executable), MEM and OBJ share their functions, all
three domains share the free function and RAW has its own malloc, and
the ctx of RAW and OBJ are one and two PyMemAllocatorEx past that of
MEM, in that order (the debug hooks of PYTHONMALLOC=debug are laid out
otherwise: beneath tracemalloc they are the saved allocator and stay
in use). A hook of the program's on top, an unknown layout or no ctypes:
nothing is swapped and the capture is traced as before, with a warning.
After swapping it checks that an object made in the window has no
trace, that one made before keeps its own, and that the traced memory
did not change; if not, it puts the hooks back and warns. resume()
restores only when the domains still hold what pause() set and
tracemalloc still traces (the program may have stopped it, or started
it again, meanwhile from another thread). Nothing here raises.
"""

import sys

import _tracemalloc

try:
    import ctypes
except ImportError:
    ctypes = None

RAW, MEM, OBJ = 0, 1, 2
_CTX, _MALLOC, _CALLOC, _REALLOC, _FREE = range(5)   # PyMemAllocatorEx's fields

_api = None      # (get, set, struct type, struct size) once loaded
_why = None      # why swapping is not possible here, once known
_active = None   # (raw, [(domain, hook, original)], [(domain, address)]) while swapped


def _load():
    """Loads the C functions once; None, or why they are not there."""
    global _api, _why
    if _api is not None or _why is not None:
        return _why
    if ctypes is None:
        _why = "this Python has no ctypes"
        return _why
    try:
        # PyMemAllocatorEx {ctx, malloc, calloc, realloc, free}, as an
        # array of 5 pointers, passed by address: no Structure class, no
        # ctypes.POINTER. ctypes keeps the array type (one per length, the
        # same at every attach) and every POINTER type it makes forever: a
        # class of the agent's would stay in the program after each
        # attach.
        Alloc = ctypes.c_void_p * 5
        get = ctypes.PYFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p)(("PyMem_GetAllocator", ctypes.pythonapi))
        set_ = ctypes.PYFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p)(("PyMem_SetAllocator", ctypes.pythonapi))
        obj_of = _object_of()
        here = obj_of(ctypes.cast(ctypes.pythonapi.PyMem_Malloc, ctypes.c_void_p).value)
        if here is None:
            _why = "the interpreter's own code cannot be told apart here (dladdr)"
            return _why
        _api = (get, set_, Alloc, ctypes.sizeof(Alloc), obj_of, here)
    except Exception as e:
        _why = "the allocator functions cannot be reached (%s)" % type(e).__name__
    return _why


def _object_of():
    """addr -> the base address of the ELF object whose code has addr
    (dladdr), or None."""
    # Dl_info {fname, fbase, sname, saddr}, as an array (see _load).
    dladdr = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(
        ("dladdr", ctypes.CDLL(None)))
    info = (ctypes.c_void_p * 4)()

    def object_of(addr):
        if not addr or not dladdr(addr, ctypes.addressof(info)):
            return None
        return info[1]
    return object_of


def _hooks():
    """The current allocators of RAW, MEM and OBJ and those saved behind
    them, if they are tracemalloc's hooks on top (see the module
    comment): ([(domain, hook, original)], None), or (None, why)."""
    get, _, Alloc, size, obj_of, here = _api
    cur = {}
    for d in (RAW, MEM, OBJ):
        a = Alloc()
        get(d, ctypes.addressof(a))
        cur[d] = a
    r, m, o = cur[RAW], cur[MEM], cur[OBJ]
    fns = (_MALLOC, _CALLOC, _REALLOC, _FREE)
    if not (m[_CTX] and o[_CTX] == m[_CTX] + 2 * size and r[_CTX] == m[_CTX] + size
            and all(m[f] == o[f] for f in fns)
            and r[_FREE] == m[_FREE] and r[_MALLOC] != m[_MALLOC]
            and all(obj_of(a[f]) == here for a in (r, m) for f in fns)):
        return None, "another allocator hook is installed on top of tracemalloc's"
    out = []
    for d in (RAW, MEM, OBJ):
        h = cur[d]
        orig = Alloc.from_buffer_copy(ctypes.string_at(h[_CTX], size))
        if not all(orig[f] for f in fns) or any(orig[f] == h[f] for f in fns):
            return None, "the allocators saved behind tracemalloc's hooks are not recognized"
        out.append((d, h, orig))
    return out, None


def _same(a, b):
    return ctypes.string_at(ctypes.addressof(a), ctypes.sizeof(a)) == \
        ctypes.string_at(ctypes.addressof(b), ctypes.sizeof(b))


def pause(raw=False):
    """Stops tracemalloc from tracing this thread's allocations of the
    MEM and OBJ domains (and RAW: raw, only in a process of one thread)
    until resume(). Returns None when it did, else why not (a warning for
    the snapshot); None too when tracemalloc does not trace. Never
    raises; call resume() whatever happens."""
    global _active
    try:
        if _active is not None or not _tracemalloc.is_tracing():
            return None
        why = _load()
        if why is not None:
            return why
        hooks, why = _hooks()
        if why is not None:
            return why
        set_ = _api[1]
        before = object()
        tb = _tracemalloc._get_object_traceback(before)
        # Made before the swap and kept until the hooks are back: a traced
        # block freed in the window would keep its trace.
        refs = [(d, ctypes.addressof(orig)) for d, _, orig in hooks if raw or d != RAW]
        _active = (raw, [h for h in hooks if raw or h[0] != RAW], refs)
        for d, ref in refs:
            set_(d, ref)
        # What the calls above freed in the window keeps its trace (a
        # few small blocks; see the module comment): the check counts
        # the traced memory, which no untraced allocation changes.
        traced = _tracemalloc.get_traced_memory()[0]
        during = [object(), object(), object(), object(), object(), object(), object(), object()]
        ok = (tb is not None and _tracemalloc.get_traced_memory()[0] == traced
              and _tracemalloc._get_object_traceback(before) == tb)
        during = before = tb = None
        if not ok:
            resume()
            return "tracemalloc still traced the agent's allocations after its hooks were set aside"
        return None
    except Exception as e:
        resume()
        return "tracemalloc's hooks could not be set aside (%s)" % type(e).__name__


def resume():
    """Puts back the hooks pause() set aside, if tracemalloc still traces
    and the domains hold what pause() left there; returns a warning when
    they were left as they were, else None. Never raises."""
    global _active
    a = _active
    if a is None:
        return None
    _active = None
    try:
        get, set_, Alloc = _api[0], _api[1], _api[2]
        swap = a[1]
        for d, _, orig in swap:
            now = Alloc()
            get(d, ctypes.addressof(now))
            if not _same(now, orig):
                return "the allocators changed during the capture; tracemalloc's hooks were left as they are"
        if not _tracemalloc.is_tracing():
            return "tracemalloc stopped during the capture; its hooks were not put back"
        for d, hook, _ in swap:
            set_(d, ctypes.addressof(hook))
        return None
    except Exception as e:
        return "tracemalloc's hooks could not be put back (%s)" % type(e).__name__


def active():
    """Whether the hooks are set aside now."""
    return _active is not None


if sys.version_info < (3, 9):   # the layout above is known from 3.9 on
    _why = "tracemalloc's layout is known for CPython 3.9 and later"
