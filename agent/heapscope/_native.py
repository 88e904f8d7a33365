"""What the agent reads of CPython's frames and code objects directly,
with ctypes: the fast locals of frames on CPython 3.9 to 3.12 (first),
the fields of code objects that gc.get_referents does not report, and
the function a running frame holds (each in its section below); and
the few primitives that read words and pointers, which _fields (the C
fields of descriptors, classes, instances, strs, modules, ctypes' class
dicts and numpy arrays) and _interp (the interpreter state) read with.
Every layout is checked at import on objects of the agent's own; a check
that fails leaves that part unread.

On those versions the only Python-level way to a frame's local variables,
frame.f_locals, copies them into a dict the frame keeps
(PyFrame_FastToLocals): that dict then holds every local alive after the
program deletes it, the program's own locals() dict changes under it, and
the copy stores into the dict with PyObject_SetItem, which compares the
names with whatever keys the program put there. 3.13 made f_locals a
proxy that reads the frame itself (PEP 667), so this module is not used
there.

Where the slots are (P is the size of a pointer, H that of an object
header, object.__basicsize__: 2 P, more in a debug build):

  3.9, 3.10   the frame object ends with f_localsplus[], at
              type(frame).__basicsize__ - P from the frame's address;
              its f_code is at H + 2 P, f_locals at H + 5 P.
  3.11, 3.12  the frame object's f_frame (at H + P) points to the
              interpreter frame, whose localsplus[] start at 8 P + 8;
              its f_locals is at 3 P (3.11) or 5 P (3.12), f_code at
              4 P (3.11) or 0 (3.12).

The slots are the locals (co_varnames), then the cell variables (3.11+:
those that are not also locals) and the free variables; an unbound local
is a NULL slot and is skipped. The layout is checked at import on a frame
of this module, comparing raw pointers with id() of known objects before
any reference is taken; if it does not match, AVAILABLE is False and the
agent leaves locals unnamed.

A frame's slots are read in one C-level call (list() over a chain of
itertools and ctypes accessors): no bytecode runs between reading a
pointer and taking a reference to the object it points to, so no other
thread can run, change the slot or end the frame in between. The frame
object keeps the memory valid: when a running frame ends while its frame
object is referenced, CPython moves the data into the frame object and
points f_frame there.
"""

import sys
import types as _types
from itertools import compress, count, repeat, tee
from operator import add, is_not

_V = sys.version_info[:2]
AVAILABLE = False

_P = _vp_at = _obj_at = _value = None   # without ctypes, nothing is read

try:
    if _V < (3, 9):
        raise ImportError("not supported")
    import ctypes
    _P = ctypes.sizeof(ctypes.c_void_p)
    _vp_at = ctypes.c_void_p.from_address
    _obj_at = ctypes.py_object.from_address
    _value = ctypes._SimpleCData.__dict__["value"].__get__
except (ImportError, AttributeError, KeyError):
    ctypes = None

_CODE = _types.CodeType.__dict__
_CO_VARNAMES = _CODE["co_varnames"].__get__
_CO_CELLVARS = _CODE["co_cellvars"].__get__
_CO_FREEVARS = _CODE["co_freevars"].__get__
_CO_NLOCALS = _CODE["co_nlocals"].__get__
_VARNAME = _CODE.get("_varname_from_oparg")   # 3.11+: name of localsplus slot i

_H = object.__basicsize__
if ctypes is not None and _V < (3, 13):
    if _V < (3, 11):
        _F_FRAME = None                                   # the slots are in the frame object
        _SLOTS = _types.FrameType.__basicsize__ - _P
        _F_LOCALS = _H + 5 * _P
        _F_CODE = _H + 2 * _P
    else:
        _F_FRAME = _H + _P
        _SLOTS = 8 * _P + 8
        _F_LOCALS = 3 * _P if _V == (3, 11) else 5 * _P
        _F_CODE = 4 * _P if _V == (3, 11) else 0


def _raw(addr):
    return _value(_vp_at(addr))


def words(addrs):
    """[the word at a] for each address a (0 for NULL)."""
    return [w or 0 for w in map(_value, map(_vp_at, addrs))]


def _base_raw(fr):
    """Address the slot offsets are counted from (no reference taken)."""
    if _F_FRAME is None:
        return id(fr)
    return _raw(id(fr) + _F_FRAME)


def _verify():
    a = object()
    b = [a]
    fr = sys._getframe()
    try:
        return _check_frame(fr, a, b)
    finally:
        # fr is this frame: a cycle (and with the f_locals dict the check
        # makes, another) that would keep the frames of the whole import
        # alive where the collector is off.
        del fr


def _check_frame(fr, a, b):
    code = fr.f_code
    base = _base_raw(fr)
    if not base or _raw(base + _F_CODE) != id(code):
        return False
    if [_raw(base + _SLOTS + _P * i) for i in range(3)] != [id(a), id(b), id(fr)]:
        return False
    d = fr.f_locals   # makes the frame's f_locals dict
    try:
        if _raw(base + _F_LOCALS) != id(d):
            return False
        # The same reads through the one-call reader, with references.
        got = _read(fr, ("a", "b", "fr"), range(_SLOTS, _SLOTS + 3 * _P, _P))
        return len(got) == 3 and got[0][1] is a and got[1][1] is b and got[2][1] is fr
    finally:
        d.clear()


def _read(fr, names, offsets):
    """[(name, object)] for the non-NULL pointers at base + offset, read
    in one C-level call (see the module comment)."""
    n = len(names)
    if _F_FRAME is None:
        bases = repeat(id(fr), n)
    else:
        bases = map(_value, map(_vp_at, repeat(id(fr) + _F_FRAME, n)))
    a1, a2 = tee(map(add, bases, offsets))
    r1, r2 = tee(map(_value, map(_vp_at, a1)))
    return list(zip(compress(names, r1), map(_value, compress(map(_obj_at, a2), r2))))


def _slot_names(code):
    """The names of the frame slots of code (the locals, cells and free
    variables), or None if they cannot be known exactly."""
    if CODE_FIELDS:
        # 3.11+: the tuple itself (3.12's getters would cache new tuples
        # in the program's code objects).
        names = code_slot_names(code)
        if type(names) is not tuple or any(map(is_not, map(type, names), repeat(str))):
            return None
        return names
    v = _CO_VARNAMES(code)
    c = _CO_CELLVARS(code)
    f = _CO_FREEVARS(code)
    if type(v) is not tuple or type(c) is not tuple or type(f) is not tuple:
        return None
    for t in (v, c, f):
        for x in t:
            if type(x) is not str:
                return None
    if _V < (3, 11):
        nl = _CO_NLOCALS(code)
        if type(nl) is not int or nl < len(v):
            return None
        return v + ("?",) * (nl - len(v)) + c + f
    names = v + tuple([x for x in c if x not in v]) + f
    # The count must be exact: slots past the locals hold stale pointers.
    if _VARNAME is None:
        return None
    try:
        if names and _VARNAME(code, len(names) - 1) != names[-1]:
            return None
        _VARNAME(code, len(names))
        return None
    except IndexError:
        return names


def fast_locals(fr, code):
    """[(name, object)] of the bound locals, cells and free variables of
    frame fr (whose code is code), without f_locals; None if they cannot
    be read on this interpreter."""
    if not AVAILABLE:
        return None
    names = _slot_names(code)
    if names is None:
        return None
    if not names:
        return []
    return _read(fr, names, range(_SLOTS, _SLOTS + _P * len(names), _P))


def frame_locals_mapping(fr):
    """The frame's f_locals field (the namespace of a module or class
    body, or the dict an earlier locals() made), or None; never makes
    one. Only where AVAILABLE."""
    if not AVAILABLE:
        return None
    got = _read(fr, ("f_locals",), (_F_LOCALS,))
    return got[0][1] if got else None


if ctypes is not None and _V < (3, 13):
    try:
        AVAILABLE = _verify()
    except Exception:
        AVAILABLE = False


# -- code objects --------------------------------------------------------------
#
# A code object is not a GC type: gc.get_referents gives nothing of it.
# What it holds is read through CodeType's member descriptors (co_consts,
# co_names, co_filename...: see _introspect.CODE_MEMBERS) and, for the
# objects no member gives (3.11+), here, at offsets from co_filename's:
#
#   co_localsplusnames, co_localspluskinds   2 P and P before it
#   _co_code (3.11)                          the cached co_code, 5 P after
#   _co_cached (3.12, 3.13)                  5 P (3.12) or 6 P (3.13) after:
#                                            a struct of the cached co_code,
#                                            co_varnames, co_cellvars and
#                                            co_freevars, each NULL until
#                                            first read
#
# co_filename's offset is found at import on a code object of this module
# as the word that holds id(co_filename), and checked against its
# neighbours (co_name, co_qualname and co_linetable after it; co_consts,
# co_names and co_exceptiontable after the header); the names tuple read
# there must be the probe's variable names, and the cache pointer must be
# the one word that changes when a fresh code object's cache is made.
# Code objects are immutable but for the caches, which are only ever set
# (from NULL) and freed with the code object.

CODE_FIELDS = ()   # ((offset, name), ...): pointers never NULL (3.11+)
CODE_CACHE = None  # (offset, indirect, names): the cache pointer(s)


def _probe(a, b):
    c = a

    def inner():
        return c
    return inner, b


def _words(o, n):
    return [_raw(id(o) + _P * i) for i in range(n)]


def _find_code_layout():
    code = _probe.__code__
    D = _CODE
    n = _types.CodeType.__basicsize__ // _P
    w = _words(code, n)
    hv = (_H + _P) // _P      # after PyObject_VAR_HEAD
    if w[hv:hv + 3] != [id(D["co_consts"].__get__(code)), id(D["co_names"].__get__(code)),
                        id(D["co_exceptiontable"].__get__(code))]:
        return None
    fn = id(D["co_filename"].__get__(code))
    if w.count(fn) != 1:
        return None
    f = w.index(fn)
    if f < hv + 5 or f + 6 >= n or w[f + 1:f + 4] != [
            id(D["co_name"].__get__(code)), id(D["co_qualname"].__get__(code)),
            id(D["co_linetable"].__get__(code))]:
        return None
    base = id(code)
    names = _obj_at(base + _P * (f - 2)).value
    kinds = _obj_at(base + _P * (f - 1)).value
    want = _slot_names_from_getters(code)
    if type(names) is not tuple or names != want or type(kinds) is not bytes or len(kinds) != len(names):
        return None
    fields = ((_P * (f - 2), "co_localsplusnames"), (_P * (f - 1), "co_localspluskinds"))
    # The cache: the one word a first read of the cached attribute sets.
    fresh = code.replace()
    before = _words(fresh, n)
    if _V == (3, 11):
        x = fresh.co_code
        after = _words(fresh, n)
        if x is not fresh.co_code or _changed(before, after) != [f + 5] or after[f + 5] != id(x):
            return fields, None
        return fields, (_P * (f + 5), False, ("co_code",))
    k = f + (5 if _V == (3, 12) else 6)
    v = fresh.co_varnames
    after = _words(fresh, n)
    if v is not fresh.co_varnames or _changed(before, after) != [k]:
        return fields, None
    c = fresh.co_cellvars
    fv = fresh.co_freevars
    x = fresh.co_code
    ptr = after[k]
    if _words_at(ptr, 4) != [id(x), id(v), id(c), id(fv)]:
        return fields, None
    return fields, (_P * k, True, ("co_code", "co_varnames", "co_cellvars", "co_freevars"))


def _changed(a, b):
    """Indices of the words that differ, past the object header (whose
    reference count may change)."""
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y and i >= _H // _P]


def _words_at(addr, n):
    return [_raw(addr + _P * i) for i in range(n)]


def _slot_names_from_getters(code):
    v = _CO_VARNAMES(code)
    return v + tuple([x for x in _CO_CELLVARS(code) if x not in v]) + _CO_FREEVARS(code)


def _nullable(addrs):
    """[(i, object)] for the non-NULL pointers at addrs[i], each read and
    referenced in one C-level call (see the module comment)."""
    a1, a2 = tee(addrs)
    r1, r2 = tee(map(_value, map(_vp_at, a1)))
    return list(zip(compress(count(), r1), map(_value, compress(map(_obj_at, a2), r2))))


def code_fields(codes):
    """[(name, [object or None per code])] for the objects the code
    objects codes hold that no member descriptor gives; [] where the
    layout is unknown (before 3.11, or the check at import failed)."""
    if not CODE_FIELDS and CODE_CACHE is None:
        return []
    ids = list(map(id, codes))
    out = []
    for off, name in CODE_FIELDS:
        out.append((name, list(map(_value, map(_obj_at, map(add, ids, repeat(off)))))))
    if CODE_CACHE is not None:
        off, indirect, names = CODE_CACHE
        if not indirect:
            col = [None] * len(ids)
            for i, o in _nullable(list(map(add, ids, repeat(off)))):
                col[i] = o
            out.append((names[0], col))
        else:
            ptrs = list(map(_value, map(_vp_at, map(add, ids, repeat(off)))))
            have = list(compress(range(len(ids)), ptrs))
            if have:
                bases = list(map(ptrs.__getitem__, have))
                for j, name in enumerate(names):
                    col = [None] * len(ids)
                    for i, o in _nullable(list(map(add, bases, repeat(_P * j)))):
                        col[have[i]] = o
                    out.append((name, col))
    return out


def free_var_names(code, n):
    """The names of code's n free variables, or None. On 3.11+ the last n
    of co_localsplusnames (3.12's co_freevars would cache a new tuple in
    the program's code object); before, co_freevars (a member)."""
    if _V < (3, 11):
        return _CO_FREEVARS(code)
    names = code_slot_names(code)
    if type(names) is not tuple or len(names) < n:
        return None
    return names[len(names) - n:]


def code_slot_names(code):
    """co_localsplusnames of code (3.11+), or None where unknown."""
    if not CODE_FIELDS:
        return None
    return _value(_obj_at(id(code) + CODE_FIELDS[0][0]))


if ctypes is not None and _V >= (3, 11):
    try:
        _got = _find_code_layout()
        if _got is not None:
            CODE_FIELDS, CODE_CACHE = _got
        del _got
    except Exception:
        CODE_FIELDS, CODE_CACHE = (), None


def nullable_column(objs, off):
    """[object or None] read at id(o) + off for each o of objs (a pointer
    field that may be NULL, each read and referenced in one C call)."""
    col = [None] * len(objs)
    for i, o in _nullable(list(map(add, map(id, objs), repeat(off)))):
        col[i] = o
    return col


# -- the function of a frame (3.11+) -------------------------------------------
#
# On 3.11+ a running frame holds its function (f_funcobj of the
# interpreter frame that the frame object's f_frame, after its header and
# f_back, points to: at 0 on 3.11, at 2 P after the code and the previous
# frame on 3.12 and 3.13); gc sees it only once the frame has finished.
# Checked at import on a frame of this module.

FRAME_FUNC = None


def _find_frame_func():
    if _V < (3, 11):
        return None
    fr = sys._getframe()
    try:
        base = _raw(id(fr) + _H + _P)
        code = 4 * _P if _V == (3, 11) else 0
        off = 0 if _V == (3, 11) else 2 * _P
        if not base or _raw(base + code) != id(fr.f_code) or _raw(base + off) != id(_find_frame_func):
            return None
        return off
    finally:
        del fr


def frame_function(fr):
    """The function frame fr runs, or None (before 3.11, or unknown)."""
    if FRAME_FUNC is None:
        return None
    got = _nullable(map(add, map(_value, map(_vp_at, (id(fr) + _H + _P,))), (FRAME_FUNC,)))
    return got[0][1] if got else None


if ctypes is not None:
    try:
        FRAME_FUNC = _find_frame_func()
    except Exception:
        pass
