"""Allocation sites of chosen classes, recorded by the classes' allocator.

Private module of the heapscope agent. tracemalloc records a site for
every allocation of the program, which makes sympy 5x slower at one
frame and 60-120x at 25 (bench/python/SITES.md). A leak needs the sites
of the classes that grew only: watch(types) puts a hook in each class's
tp_alloc slot, the function every instance of a Python class is
allocated with (object.__new__, and through it a call of the class,
copy, pickle, and the interpreter's specialized calls, on 3.9-3.13). The
hook notes the calling frames (the code object and the instruction of
each, up to `frames` of them, innermost first; when all of those are a
library's, the program's own innermost frame further out and three of
its callers too) and calls the allocator it replaced, then notes the
new object's address. Other classes'
allocations cost nothing; a watched class's 1.2-3 us each
(bench/python/watch.py).

What is kept: an array of (address, stack number) pairs, one per
allocation, and the stacks (the class, then code objects and
instruction offsets). The array holds no Python object per allocation,
and is compacted (the last stack of each address kept) when it has
doubled, so memory is bounded by the addresses the classes' instances
have used, not by the allocations. A pair is appended in one C call,
and the compaction replaces the part it read in one slice assignment
(under a lock that a hook never waits for), so hooks in several
threads never pair an address with another allocation's stack nor lose
one. A live instance of a watched class
was allocated through the hook at its address, and no other instance of
the class was allocated there since (any would have gone through the
hook too), so the last stack noted at its address is its own: the
capture gives it only when the object's class is the one noted (an
object of another class may have the address now). An object whose
__class__ was assigned to a watched class after it was allocated can be
given a stale stack; one allocated before the watch began gets none.

Which classes: Python classes (heap types) whose layout chain, up to
the first built-in base, has only the instance traversal of Python
classes, on object, int, float, complex or a built-in exception. The
hook is Python code that runs after the allocator returned and before
the class's C constructor fills the object in, and the collector may
run there (from the hook's own allocations; on 3.12+ at the
interpreter's check after any call): it then looks into a zeroed
object. Those bases, and the agent's capture, read a zeroed instance
safely; a zeroed dict, set, tuple or str is not (dict's and set's
traversal dereference their tables; the capture iterates tuples and
reads strs), so subclasses of those are refused, with the reason.

The hook never raises into the program: a failure of its own
bookkeeping records no site. If the replaced allocator itself fails
(memory exhausted), the program sees a SystemError where it would have
seen a MemoryError: a ctypes callback cannot pass an exception on.
The ctypes callbacks (one per allocator replaced, shared by the classes
that have it) are never freed: a thread may be inside one when its
class is unwatched, or the interpreter be shutting down. At exit every
class is unwatched. A trace or profile function the program set
(sys.settrace, coverage) sees the hook's frames like any other.

Like the rest of the agent it runs no code of the program's: it reads
classes' __flags__, __base__ and slots, and frames' code and offsets.
"""

import _thread
import sys
from array import array
from itertools import chain, count

from . import _own

try:
    import ctypes
    _P = ctypes.sizeof(ctypes.c_void_p)
    _ALLOC = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t)
    _HOOK = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ssize_t)
    _vp_at = ctypes.c_void_p.from_address
    _modified = ctypes.pythonapi.PyType_Modified
    _modified.argtypes = [ctypes.py_object]
    _modified.restype = None
    _incref = ctypes.pythonapi.Py_IncRef
    _incref.argtypes = [ctypes.py_object]
    _incref.restype = None
except Exception as e:   # no ctypes: nothing can be watched
    ctypes = None
    _why_not = "ctypes cannot be loaded here (%s: %s)" % (type(e).__name__, e)
else:
    _why_not = None

HEAPTYPE = 1 << 9
_T_FLAGS = type.__dict__["__flags__"].__get__
_T_BASE = type.__dict__["__base__"].__get__
_T_NAME = type.__dict__["__qualname__"].__get__
_getframe = sys._getframe

# Slot offsets in PyTypeObject (3.9-3.13 share them; checked at import).
_O_BASICSIZE, _O_DEALLOC, _O_FLAGS, _O_TRAVERSE, _O_ALLOC = 4, 6, 21, 23, 38

_SAFE_BASES = (object, int, float, complex)


def _probe():
    """The addresses of subtype_traverse, PyType_GenericAlloc and
    subtype_dealloc, read from a class of the agent's after checking
    that the slots around them hold what they should; or a reason."""
    class Probe:
        pass
    base = id(Probe)
    if _vp_at(base + _O_BASICSIZE * _P).value != Probe.__basicsize__:
        return None, "this Python's class layout is not the one the agent knows (tp_basicsize)"
    if (_vp_at(base + _O_FLAGS * _P).value or 0) != _T_FLAGS(Probe):
        return None, "this Python's class layout is not the one the agent knows (tp_flags)"
    generic = ctypes.cast(ctypes.pythonapi.PyType_GenericAlloc, ctypes.c_void_p).value
    if _vp_at(base + _O_ALLOC * _P).value != generic:
        return None, "this Python's class layout is not the one the agent knows (tp_alloc)"
    return (_vp_at(base + _O_TRAVERSE * _P).value, generic, _vp_at(base + _O_DEALLOC * _P).value), None


_SUBTYPE_TRAVERSE = _SUBTYPE_DEALLOC = None
if ctypes is not None:
    try:
        got, _why_not = _probe()
        if got is not None:
            _SUBTYPE_TRAVERSE, _SUBTYPE_DEALLOC = got[0], got[2]
    except Exception as e:
        _why_not = "the agent could not read a class's slots (%s: %s)" % (type(e).__name__, e)


def refusal(t):
    """Why class t cannot be watched, or None if it can."""
    if _why_not is not None:
        return _why_not
    if _closed[0]:
        return "the interpreter is exiting"
    if not issubclass(type(t), type):   # not isinstance: it may look t.__class__ up
        return "not a class"
    if not _T_FLAGS(t) & HEAPTYPE:
        return "a built-in class (its instances are not made by an allocator the agent can hook)"
    b = t
    while b is not None and _T_FLAGS(b) & HEAPTYPE:
        # A class statement's classes have the interpreter's own
        # deallocator (and traversal, when they have one); a C
        # extension's heap types have theirs.
        trav = _vp_at(id(b) + _O_TRAVERSE * _P).value
        if (trav is not None and trav != _SUBTYPE_TRAVERSE) or _vp_at(id(b) + _O_DEALLOC * _P).value != _SUBTYPE_DEALLOC:
            return "a class made by a C extension (%s)" % _T_NAME(b)
        b = _T_BASE(b)
    if any(b is x for x in _SAFE_BASES) or (b is not None and issubclass(b, BaseException)):
        return None
    return ("built on %s, which the collector cannot look into before %s's constructor has "
            "filled it in" % (_T_NAME(b), _T_NAME(b)))


class _State:
    """What the hooks note, shared by every watched class."""

    def __init__(self):
        self.pairs = array("Q")     # address, stack number of each allocation noted
        self.compact_at = 1 << 17
        self.compacting = _thread.allocate_lock()
        self.stacks = {}            # number -> (class, (code, offset), ...)
        self.numbers = count(1)     # stack numbers: next() is one C call, so two threads get two
        self.by_key = {}            # (class id, code id, offset, ...) -> number
        self.frames = 8
        self.hooked = {}            # class id -> (class, original allocator, hook address)
        self.libs = {}              # file name -> whether it is a library's (_library)

    def stack(self, tp, f):
        """The number of the stack of frames from f outwards, for class
        address tp, made if new: the innermost self.frames frames, and
        when none of them is the program's own but more frames follow,
        the program's innermost frame further out and up to CALLERS of
        its callers (the library frames between are left out). sympy's
        derivatives allocate more than 16 frames deep in sympy, where
        the line a user changes is not."""
        key = [tp]
        codes = []
        offs = []
        f = _note(f, self.frames, key, codes, offs)
        k = tuple(key)
        s = self.by_key.get(k)
        if s is None:
            if f is None or not all(map(self.library, codes)):
                return self._made(k, tp, codes, offs)
            if tp not in self.hooked:
                return 0
            s = self.by_key[k] = _FURTHER
        if s != _FURTHER:
            return s
        # The program's frame is further out, where the stacks that
        # share these frames differ: it is looked for each time.
        depth = _DEPTH
        library = self.library
        while f is not None and depth and library(f.f_code):
            f = f.f_back
            depth -= 1
        key.append(-1)   # longer than any key of the innermost frames alone
        if depth:
            _note(f, CALLERS + 1, key, codes, offs)
        k = tuple(key)
        s = self.by_key.get(k)
        return s if s is not None else self._made(k, tp, codes, offs)

    def _made(self, k, tp, codes, offs):
        """The number of a new stack key k, its stack (the class at tp,
        codes and offs) kept; 0 when the class is no longer watched."""
        h = self.hooked.get(tp)
        if h is None:
            return 0
        s = next(self.numbers)
        self.stacks[s] = (h[0],) + tuple(zip(codes, offs))
        self.by_key[k] = s
        return s

    def library(self, code):
        """Whether code is a library's or the runtime's (see _library),
        by its file name."""
        fn = code.co_filename
        v = self.libs.get(fn)
        if v is None:
            v = self.libs[fn] = _library(fn)
        return v

    def compact(self):
        """Keeps the last stack noted at each address (see the module
        comment); another thread's compaction in progress: nothing."""
        if not self.compacting.acquire(False):
            return
        try:
            p = self.pairs
            n = len(p) & ~1
            last = dict(zip(p[0:n:2], p[1:n:2]))
            p[0:n] = array("Q", chain.from_iterable(last.items()))
            self.compact_at = max(1 << 17, 2 * len(p))
        finally:
            self.compacting.release()


def _note(f, n, key, codes, offs):
    """Notes up to n frames from f outwards (their code objects' ids and
    instruction offsets in key, the code objects in codes, the offsets
    in offs); returns the frame past them."""
    while f is not None and n:
        c = f.f_code
        o = f.f_lasti
        key.append(id(c))
        key.append(o)
        codes.append(c)
        offs.append(o)
        f = f.f_back
        n -= 1
    return f


# A stack key whose frames are all a library's, with more frames
# further out (see _State.stack); stack numbers start at 1.
_FURTHER = -1
CALLERS = 3      # callers of the program's frame noted past the innermost frames
_DEPTH = 1024    # frames looked through for the program's


def _library(fn):
    """Whether a code object's file name is a library's or the
    runtime's: Python's standard library, site-packages and
    dist-packages, frozen modules, and the leak check's own loop. The
    same rule as the analysis's (analyze.Frame.Library), which then
    takes the innermost frame that is not one as the site."""
    if type(fn) is not str:
        return False
    return ("/site-packages/" in fn or "/dist-packages/" in fn or "/lib/python3/" in fn or "/lib/python3." in fn
            or fn.startswith("<frozen ") or fn.endswith(("/heapscope/leakcheck.py", "/heapscope/pytest_plugin.py")))


_state = _State()


def _state_parts():
    """The watch's state and its tables, the agent's whatever holds them
    (see _own.HELD_BY)."""
    st = _state
    return [st, st.pairs, st.stacks, st.by_key, st.hooked, st.libs, st.numbers, st.compacting]


_own.HELD_BY.append(_state_parts)
# The hook made for each allocator replaced (its address -> the hook's):
# a hook reads the class from its argument, so all the classes that
# have one allocator (PyType_GenericAlloc, for Python classes) share
# one; never freed (see the module comment).
_hooks = {}
_exit_registered = [False]
_closed = [False]   # the interpreter began to exit: nothing is watched again


def _close():
    """At exit: unwatches every class, for good (a fork capture's agent
    thread that ends later must not hook a class again while the
    interpreter is torn down)."""
    _closed[0] = True
    unwatch()


def _make_hook(orig, st):
    getframe = _getframe

    def hook(tp, n):
        s = 0
        try:
            s = st.stack(tp, getframe(1))
            if len(st.pairs) >= st.compact_at:
                st.compact()
        except BaseException:
            s = 0
        a = orig(tp, n)
        if a and s:
            try:
                st.pairs.extend((a, s))
            except BaseException:
                pass
        return a
    return hook


def watch(types, frames=8):
    """Starts noting the allocation sites of the classes in types, with
    up to frames frames each (1-256; the latest call sets it for all).
    Returns [(class, reason)] of those that cannot be watched. A class
    watched already stays so."""
    frames = int(frames)
    if not 1 <= frames <= 256:
        raise ValueError("frames must be from 1 to 256, not %d" % frames)
    _state.frames = frames
    refused = []
    for t in types:
        why = refusal(t)
        if why is not None:
            refused.append((t, why))
            continue
        tid = id(t)
        if tid in _state.hooked:
            continue
        slot = _vp_at(tid + _O_ALLOC * _P)
        was = slot.value
        addr = _hooks.get(was)
        if addr is None:
            cb = _HOOK(_make_hook(_ALLOC(was), _state))
            _incref(cb)
            _own.HELD.append(cb)
            addr = _hooks[was] = ctypes.cast(cb, ctypes.c_void_p).value
        _state.hooked[tid] = (t, was, addr)
        slot.value = addr
        _modified(t)
    if _state.hooked and not _exit_registered[0]:
        import atexit
        atexit.register(_close)
        _exit_registered[0] = True
    return refused


def unwatch(types=None):
    """Puts the allocator of the classes in types (None: every watched
    class) back and forgets their sites: once a class is no longer
    watched, an address noted for it may hold an instance allocated
    without the hook. A class whose slot something else changed since
    keeps it."""
    st = _state
    gone = set(st.hooked) if types is None else {id(t) for t in types} & st.hooked.keys()
    for tid in gone:
        t, orig, addr = st.hooked.pop(tid)
        slot = _vp_at(tid + _O_ALLOC * _P)
        if slot.value == addr:
            slot.value = orig
            _modified(t)
    if not st.hooked:
        frames = st.frames
        st.__init__()
        st.frames = frames
        return
    for n, s in list(st.stacks.items()):
        if id(s[0]) in gone:
            del st.stacks[n]
    st.by_key = {k: v for k, v in st.by_key.items() if v in st.stacks}


_SUBCLASSES = type.__dict__["__subclasses__"]


def live_classes(ids):
    """{id: class} for the live classes whose ids are in ids, found from
    object through each class's subclasses (the C method of type's, never
    a metaclass's): every class is one of object's, and a class that
    died is no longer listed by its bases."""
    want = set(ids)
    out = {}
    todo = [object]
    seen = {id(object)}
    while todo and len(out) < len(want):
        for c in _SUBCLASSES(todo.pop()):
            i = id(c)
            if i not in seen:
                seen.add(i)
                todo.append(c)
                if i in want:
                    out[i] = c
    return out


def watched():
    """The classes watched now."""
    return [h[0] for h in _state.hooked.values()]


def table():
    """For a capture: {address: stack number} (ints only), or None when
    nothing was noted; stack() gives each number's stack. The capture
    holds no reference to the watch's stacks before it has found the
    agent's own objects (_own): one would make them the program's."""
    p = _state.pairs[:]
    if not p:
        return None
    return dict(zip(p[0::2], p[1::2]))


def stack(n):
    """Stack number n: (class, (code, offset), ...), innermost frame
    first; None once its class is no longer watched."""
    return _state.stacks.get(n)


_CO_NAME = type(_probe.__code__).__dict__.get("co_qualname", type(_probe.__code__).co_name).__get__


def _line(code, off):
    """The line of the instruction at byte offset off of code, or 0."""
    if hasattr(code, "co_lines"):   # 3.10+
        for start, end, line in code.co_lines():
            if start <= off < end:
                return line or 0
        return 0
    tab = code.co_lnotab            # 3.9: (address step, line step) pairs
    line, addr = code.co_firstlineno, 0
    for i in range(0, len(tab) - 1, 2):
        addr += tab[i]
        if addr > off:
            break
        d = tab[i + 1]
        line += d - 256 if d >= 128 else d
    return line


def frames(stack):
    """A stack's frames as (file, line, function), innermost first."""
    out = []
    for code, off in stack[1:]:
        f, name = code.co_filename, _CO_NAME(code)
        out.append((f if type(f) is str else "?", _line(code, off), name if type(name) is str else None))
    return tuple(out)
