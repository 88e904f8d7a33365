"""What the agent reads of CPython's C structures directly, with ctypes:
the fast locals of frames on CPython 3.9 to 3.12.

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
from itertools import compress, repeat, tee
from operator import add

_V = sys.version_info[:2]
AVAILABLE = False

try:
    if not (3, 9) <= _V < (3, 13):
        raise ImportError("not needed")
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

if ctypes is not None:
    _H = object.__basicsize__
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


def _base_raw(fr):
    """Address the slot offsets are counted from (no reference taken)."""
    if _F_FRAME is None:
        return id(fr)
    return _raw(id(fr) + _F_FRAME)


def _verify():
    a = object()
    b = [a]
    fr = sys._getframe()
    code = fr.f_code
    base = _base_raw(fr)
    if not base or _raw(base + _F_CODE) != id(code):
        return False
    if [_raw(base + _SLOTS + _P * i) for i in range(3)] != [id(a), id(b), id(fr)]:
        return False
    d = locals()   # makes this frame's f_locals dict
    if _raw(base + _F_LOCALS) != id(d):
        return False
    # The same reads through the one-call reader, with references.
    got = _read(fr, ("a", "b", "fr"), range(_SLOTS, _SLOTS + 3 * _P, _P))
    return len(got) == 3 and got[0][1] is a and got[1][1] is b and got[2][1] is fr


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


if ctypes is not None:
    try:
        AVAILABLE = _verify()
    except Exception:
        AVAILABLE = False
