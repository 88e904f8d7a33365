"""Allocation sites for the heapscope agent: where tracemalloc says each
object was allocated (docs/pysnap-format.md, SITES and OBJECT_SITES).

Private module of the heapscope agent. When tracemalloc traces (heapscope
run --trace-alloc sets PYTHONTRACEMALLOC; the program may start it
itself), a full capture asks _tracemalloc._get_object_traceback, a C
function that reads the trace of the object's memory block and runs no
code of the program, for every object of each chunk, and writes the
stacks it gets as a call tree of sites, innermost frame first, after the
chunk. Objects tracemalloc does not trace (allocated before it started,
or outside the Python allocator) get no site.

CPython 3.11's _get_object_traceback looks an instance with a managed
dict up at the wrong address (it leaves out the two pointers before the
GC header), and finds nothing; for those the agent asks
_PyTraceMalloc_GetTraceback, with ctypes, at the right one: a lookup in
tracemalloc's table, which reads no memory at that address.

tracemalloc's frames are a file and a line; each site also names the
function whose code has that line (Functions): the code objects of the
program's functions, of the threads' running frames and those they hold
as constants (nested functions, class bodies, comprehensions), grouped
by file when a site first needs one, the innermost (latest first line)
winning where code objects share a line; a line no code object has
(module code that has run) gets no function.
"""

import gc
import sys
from itertools import compress, repeat
from operator import is_, is_not

import _tracemalloc

from . import _format as F
from . import _watch
from ._introspect import current_frames, _FR_BACK, _FR_CODE

_traceback = _tracemalloc._get_object_traceback
_T_FLAGS = type.__dict__["__flags__"].__get__
_MANAGED_DICT = 1 << 4   # Py_TPFLAGS_MANAGED_DICT, 3.11

_traceback_at = None     # (domain, address) -> traceback, on 3.11
if sys.version_info[:2] == (3, 11):
    try:
        import ctypes
        _traceback_at = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_uint, ctypes.c_size_t)(
            ("_PyTraceMalloc_GetTraceback", ctypes.pythonapi))
        _PREHEADER = 4 * ctypes.sizeof(ctypes.c_void_p)   # the managed dict's 2 pointers and PyGC_Head
    except Exception:
        _traceback_at = None


_FUNC = type(lambda: None)
_CODE = type(_FUNC.__code__.__get__(lambda: None))
_FUNC_CODE = _FUNC.__code__.__get__
_CO_NAME = _CODE.__dict__.get("co_qualname", _CODE.co_name).__get__   # co_qualname: 3.11+


def _code_lines(c):
    """The lines code object c has instructions of, and its first line."""
    yield c.co_firstlineno
    if hasattr(c, "co_lines"):   # 3.10+
        for _, _, line in c.co_lines():
            if line is not None:
                yield line
    else:
        import dis
        for _, line in dis.findlinestarts(c):
            yield line


class Functions:
    """(file, line) -> the name of the function whose code has that
    line (see the module comment), or None. The code objects are found
    once, at the first lookup; a file's lines are indexed at its first."""

    def __init__(self):
        self.by_file = None      # file -> [code objects]
        self.lines = {}          # file -> {line: (first line, name)}

    def _codes(self):
        objs = gc.get_objects()
        todo = list(map(_FUNC_CODE, compress(objs, map(is_, map(type, objs), repeat(_FUNC)))))
        del objs
        for fr in list(current_frames().values()):
            while fr is not None:
                todo.append(_FR_CODE(fr))
                fr = _FR_BACK(fr)
        seen = set()
        by_file = {}
        while todo:
            c = todo.pop()
            if type(c) is not _CODE or id(c) in seen:
                continue
            seen.add(id(c))
            f = c.co_filename
            if type(f) is str:
                by_file.setdefault(f, []).append(c)
            todo.extend(k for k in c.co_consts if type(k) is _CODE)
        return by_file

    def name(self, fname, line):
        m = self.lines.get(fname)
        if m is None:
            if self.by_file is None:
                self.by_file = self._codes()
            m = self.lines[fname] = {}
            for c in self.by_file.get(fname, ()):
                first, name = c.co_firstlineno, _CO_NAME(c)
                if type(name) is not str:
                    continue
                for ln in _code_lines(c):
                    have = m.get(ln)
                    if have is None or have[0] < first:
                        m[ln] = (first, name)
        r = m.get(line)
        return None if r is None else r[1]


def tracing():
    """Reports whether tracemalloc traces allocations now."""
    try:
        return bool(_tracemalloc.is_tracing())
    except Exception:
        return False


class Sites:
    """The site table of one capture: the tracebacks seen (a tuple of
    frames, innermost first: (file, line) from tracemalloc, (file, line,
    function) from _watch) and the tree nodes (caller, file, line), each
    with its site number; new sites wait in the columns until the
    chunk's SITES section is written. An object _watch noted the stack
    of gets that one; others get tracemalloc's, if it traces."""

    @classmethod
    def make(cls, cap):
        """The Sites of a capture, or None when neither tracemalloc nor
        _watch has sites to give."""
        traced = tracing()
        watched = _watch.table()
        if not traced and watched is None:
            return None
        return cls(cap, traced, watched)

    def __init__(self, cap, traced=True, watched=None):
        self.cap = cap          # for the string table (cap.name)
        self.traced = traced
        self.watched = watched  # {address: stack number} from _watch, or None
        self.watched_tbs = {}   # stack number -> traceback
        self.by_tb = {}         # traceback -> site
        self.by_node = {}       # (caller site, file, line) -> site
        self.nsites = 1         # site 0: not known
        self.parent = F.u32s()
        self.file = F.u32s()
        self.line = F.u32s()
        self.function = F.u32s()
        self.functions = Functions()
        self.managed = {}       # id(type) -> has a managed dict (3.11)

    def _site(self, tb):
        """The site of traceback tb, made if new, outermost frame first."""
        s = self.by_tb.get(tb)
        if s is not None:
            return s
        s = 0
        for fr in reversed(tb):
            fname, lineno = fr[0], fr[1]
            key = (s, fname, lineno)
            n = self.by_node.get(key)
            if n is None:
                n = self.nsites
                self.nsites += 1
                self.by_node[key] = n
                self.parent.append(s)
                ok = type(fname) is str and type(lineno) is int and 0 <= lineno < 1 << 32
                self.file.append(self.cap.name(fname) if type(fname) is str else 0)
                self.line.append(lineno if ok else 0)
                func = fr[2] if len(fr) > 2 else self.functions.name(fname, lineno) if ok else None
                self.function.append(self.cap.name(func) if func is not None else 0)
            s = n
        self.by_tb[tb] = s
        return s

    def collect(self, chunk, addr):
        """The sites of the objects of chunk (whose addresses are addr):
        (addresses, sites) of those tracemalloc traces, or None. New
        sites' file names go into the string table, to be flushed with
        the chunk's."""
        if self.traced:
            tbs = list(map(_traceback, chunk))
            if _traceback_at is not None:
                self._managed(chunk, addr, tbs)
        else:
            tbs = [None] * len(chunk)
        if self.watched is not None:
            self._watched(chunk, addr, tbs)
        sel = list(map(is_not, tbs, repeat(None)))
        if not any(sel):
            return None
        sites = F.u32s(list(map(self._site, compress(tbs, sel))))
        return F.u64s(compress(addr, sel)), sites

    def _watched(self, chunk, addr, tbs):
        """The stacks _watch noted of the objects of chunk, in place of
        tracemalloc's: only where the object's class is the one noted."""
        by_addr = self.watched
        got = list(map(by_addr.get, addr))
        if not any(got):
            return
        known = self.watched_tbs
        for i in compress(range(len(got)), got):
            n = got[i]
            st = _watch.stack(n)
            if st is None or type(chunk[i]) is not st[0]:
                continue
            tb = known.get(n)
            if tb is None:
                tb = known[n] = _watch.frames(st)
            tbs[i] = tb

    def _managed(self, chunk, addr, tbs):
        """3.11: the tracebacks of instances with a managed dict."""
        managed = self.managed
        for i in compress(range(len(tbs)), map(is_, tbs, repeat(None))):
            t = type(chunk[i])
            m = managed.get(id(t))
            if m is None:
                m = managed[id(t)] = bool(_T_FLAGS(t) & _MANAGED_DICT)
            if m:
                tbs[i] = _traceback_at(0, addr[i] - _PREHEADER)

    def write(self, w, part):
        """Writes the sites made since the last call, then part's object
        sites."""
        if self.parent:
            w.sites(self.parent, self.file, self.function, self.line)
            self.parent, self.file, self.function, self.line = F.u32s(), F.u32s(), F.u32s(), F.u32s()
        w.object_sites(*part)
