"""What the agent reads of CPython's C structures directly, with ctypes:
the fast locals of frames on CPython 3.9 to 3.12 (first), and the fields
of code objects, descriptors, classes, modules, frames and ctypes' class
dicts that gc.get_referents does not report, the interned bit of strs
and the words of the interpreter state (each in its section below).
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


# -- descriptors and types -----------------------------------------------------
#
# A descriptor of a builtin type (method_descriptor, wrapper_descriptor,
# getset_descriptor, member_descriptor, classmethod_descriptor) holds its
# class, its name and, once __qualname__ has been read, its qualified
# name (d_type, d_name, d_qualname, after the object header); gc sees
# only the class. __objclass__ and __name__ are member descriptors;
# d_qualname (made on first read of __qualname__, so never read through
# it) is found at import as the word a first read sets.
#
# A class holds the record of its subclasses (tp_subclasses: a dict of
# weak references keyed by address), which gc does not see: three
# pointers after tp_bases, which is found at import on a class of this
# module (tp_bases and tp_mro are adjacent), and checked as the word
# that defining a subclass sets. On 3.12+ a static builtin type
# (flag 1 << 1) keeps an index there instead, and its record in the
# interpreter state (read there, see below).

DESCR_QUALNAME = None
TYPE_SUBCLASSES = None
STATIC_BUILTIN = 1 << 1 if _V >= (3, 12) else 0


def _find_descr_qualname():
    class _D:
        __slots__ = ("x",)
    d = _D.__dict__["x"]
    D = type(d).__dict__
    w = _words(d, 3 + _H // _P)
    h = _H // _P
    if w[h] != id(D["__objclass__"].__get__(d)) or w[h + 1] != id(D["__name__"].__get__(d)) or w[h + 2]:
        return None
    q = d.__qualname__
    if q is not d.__qualname__ or _raw(id(d) + _H + 2 * _P) != id(q):
        return None
    return _H + 2 * _P


def _find_type_subclasses():
    class _A:
        pass
    n = type.__basicsize__ // _P
    w = _words(_A, n)
    b = id(type.__dict__["__bases__"].__get__(_A))
    if w.count(b) != 1:
        return None
    i = w.index(b)
    if i + 4 >= n or w[i + 1] != id(type.__dict__["__mro__"].__get__(_A)) or w[i + 3]:
        return None

    class _B(_A):
        pass
    after = _words(_A, n)
    if _changed(w, after) != [i + 3]:
        return None
    rec = _obj_at(id(_A) + _P * (i + 3)).value
    if type(rec) is not dict or len(rec) != 1 or list(rec.values())[0]() is not _B:
        return None
    return _P * (i + 3)


def type_subclasses(t, flags):
    """The record of t's subclasses (a dict), or None."""
    if TYPE_SUBCLASSES is None or flags & STATIC_BUILTIN:
        return None
    got = _nullable((id(t) + TYPE_SUBCLASSES,))
    return got[0][1] if got else None


# -- the interpreter state -----------------------------------------------------
#
# The interpreter's own C struct (PyInterpreterState) holds objects no
# object refers to: the codec registry, the warnings filters, gc.garbage,
# the modules by index, the type attribute cache, the AST singletons, and
# on 3.12+ the dicts and subclass records of the static builtin types.
# The agent reads the struct's words (the size of a release build of each
# version, less a margin: a struct of a debug build is larger); a word that
# is the address of an object the snapshot lists is a reference of the
# interpreter's (a synthetic object, "(interpreter state)", holds them).
# The struct is found with PyInterpreterState_Get and checked at import:
# the words at the offsets of sys.modules, sys.__dict__ and the builtins
# dict must be theirs. Offsets and sizes of release builds on 64-bit
# platforms; elsewhere (32-bit, free-threaded) nothing is read. Left out:
# the free lists (3.10+: they keep pointers to objects freed, whose memory
# a live object may have taken since) and the values of the type
# attribute cache (3.10+: borrowed, possibly stale; its names are held).

_INTERP = {
    (3, 9): (5656, {856: "modules", 864: "modules_by_index", 872: "sysdict", 880: "builtins", 888: "importlib",
                    824: "gc.garbage", 832: "gc.callbacks", 912: "codec_search_path", 920: "codec_search_cache",
                    928: "codec_error_registry", 1376: "dict", 1384: "builtins_copy", 1392: "import_func",
                    3456: "before_forkers", 3464: "after_forkers_parent", 3472: "after_forkers_child",
                    3504: "warnings.filters", 3512: "warnings.once_registry", 3520: "warnings.default_action",
                    3536: "audit_hooks"}, (), None, ()),
    (3, 10): (113528, {856: "modules", 864: "modules_by_index", 872: "sysdict", 880: "builtins", 888: "importlib",
                       824: "gc.garbage", 832: "gc.callbacks", 912: "codec_search_path", 920: "codec_search_cache",
                       928: "codec_error_registry", 1344: "dict", 1352: "builtins_copy", 1360: "import_func",
                       3424: "before_forkers", 3432: "after_forkers_parent", 3440: "after_forkers_child",
                       3456: "warnings.filters", 3464: "warnings.once_registry", 3472: "warnings.default_action",
                       3504: "audit_hooks"},
              ((9776, 9792), (9800, 10040), (10040, 10688), (10688, 11984), (12000, 13296), (13296, 13312),
               (13320, 13328), (11984, 12000)),
              (15216, 4096, 24, 16), ((13336, 15216, "ast"),)),
    (3, 11): (107752, {888: "modules", 896: "modules_by_index", 904: "sysdict", 912: "builtins", 920: "importlib",
                       856: "gc.garbage", 864: "gc.callbacks", 936: "codec_search_path", 944: "codec_search_cache",
                       952: "codec_error_registry", 1400: "dict", 1408: "builtins_copy", 1416: "import_func",
                       3480: "before_forkers", 3488: "after_forkers_parent", 3496: "after_forkers_child",
                       3504: "warnings.filters", 3512: "warnings.once_registry", 3520: "warnings.default_action",
                       3552: "audit_hooks"},
              ((3608, 3624), (3632, 3872), (3872, 4520), (4520, 5816), (5816, 7112), (7112, 7128), (7136, 7144)),
              (9056, 4096, 24, 16), ((7160, 9056, "ast"),)),
    (3, 12): (383552, {944: "modules", 952: "modules_by_index", 352: "sysdict", 360: "builtins", 960: "importlib",
                       320: "gc.garbage", 328: "gc.callbacks", 1248: "codec_search_path", 1256: "codec_search_cache",
                       1264: "codec_error_registry", 1720: "dict", 1736: "builtins_copy", 984: "import_func",
                       3872: "before_forkers", 3880: "after_forkers_parent", 3888: "after_forkers_child",
                       3896: "warnings.filters", 3904: "warnings.once_registry", 3912: "warnings.default_action",
                       267208: "audit_hooks"},
              ((267408, 267424), (269832, 270072), (270072, 270720), (270720, 272088), (272088, 273384),
               (273384, 273400), (273408, 273416), (269816, 269820), (267432, 269816)),
              (275392, 4096, 24, 16), ((273432, 275384, "ast"), (373704, 381704, "static types"))),
    (3, 13): (194968, {7656: "modules", 7664: "modules_by_index", 7640: "sysdict", 7648: "builtins",
                       7672: "importlib", 7608: "gc.garbage", 7616: "gc.callbacks", 7960: "codec_search_path",
                       7968: "codec_search_cache", 7976: "codec_error_registry", 8448: "dict",
                       8464: "builtins_copy", 7696: "import_func", 10632: "before_forkers",
                       10640: "after_forkers_parent", 10648: "after_forkers_child", 10656: "warnings.filters",
                       10664: "warnings.once_registry", 10672: "warnings.default_action", 10808: "audit_hooks"},
              ((10952, 14488), (82648, 82656), (17000, 82544), (14560, 17000)),
              (84656, 4096, 24, 16), ((82696, 84648, "ast"), (182960, 192568, "static types"))),
}
_INTERP_MARGIN = 256
INTERP = None    # (address, number of words, {offset: name}, offsets left out)


def _find_interp():
    if _P != 8 or "t" in getattr(sys, "abiflags", "") or _V not in _INTERP:
        return None
    size, fields, ranges, cache, regions = _INTERP[_V]
    get = ctypes.pythonapi.PyInterpreterState_Get
    get.restype = ctypes.c_void_p
    get.argtypes = ()
    base = get()
    if not base:
        return None
    import builtins
    names = {v: k for k, v in fields.items()}
    want = {names["modules"]: id(sys.modules), names["sysdict"]: id(sys.__dict__),
            names["builtins"]: id(builtins.__dict__)}
    for off, i in want.items():
        if _raw(base + off) != i:
            return None
    skip = set()
    for lo, hi in ranges:
        skip.update(range(lo, hi, _P))
    names = dict(fields)
    for lo, hi, name in regions:
        names.update(zip(range(lo, hi, _P), repeat(name)))
    if cache is not None:
        start, n, stride, value = cache
        skip.update(range(start + value, start + n * stride, stride))
        names.update(zip(range(start + value - _P, start + n * stride, stride), repeat("type_cache")))
    return base, (size - _INTERP_MARGIN) // _P, names, frozenset(skip)


def interp_words():
    """The interpreter state's address and [(word, offset)] for its
    non-NULL, aligned words that may hold a reference; None where it
    cannot be read."""
    if INTERP is None:
        return None
    base, n, _, skip = INTERP
    offs = range(0, n * _P, _P)
    words = list(map(_value, map(_vp_at, map(add, repeat(base), offs))))
    return base, [(w, o) for w, o in zip(words, offs) if w and not w & 7 and o not in skip]


if ctypes is not None:
    for _name, _fn in (("DESCR_QUALNAME", _find_descr_qualname), ("TYPE_SUBCLASSES", _find_type_subclasses),
                       ("INTERP", _find_interp)):
        try:
            globals()[_name] = _fn()
        except Exception:
            pass
    del _name, _fn


# -- strs, modules, ctypes' type records ---------------------------------------
#
# An interned str (an identifier, an attribute name) is referenced from C
# all over the interpreter (identifier tables, the type attribute cache),
# and those references are not objects': its state bits say it is interned
# (the low 2 bits of the byte after the header, the length and the hash;
# checked at import on an interned and a fresh str).
#
# A module made by a single-phase extension (sys, builtins...) has a copy
# of its dict in its PyModuleDef (m_copy, for reimporting): the module
# holds md_def (after md_dict), whose m_copy follows its object header, an
# init function and an index. Checked at import on sys's module, whose
# md_dict must be its __dict__ and whose m_copy must be a dict naming it.
#
# ctypes (before 3.13) keeps what its types are made of in the C fields
# of their class dicts (StgDict): proto (the _type_ of a simple type, the
# target of a pointer type), argtypes, converters, restype and checker of
# a function prototype; gc sees only the dict's entries. Found at import
# on ctypes' own memmove prototype and c_int: argtypes and restype are
# their class attributes, proto c_int's _type_.

STR_STATE = None     # offset of a str's state byte
MODULE_COPY = None   # (offset of md_def, offset of m_copy in the def)
STGDICT = None       # (id(StgDict type), ((offset, name), ...))


def _find_str_state():
    off = _H + 2 * _P
    s = sys.intern("".join(("heapscope", "-interned-probe")))
    t = "".join(("heapscope", "-fresh-probe"))
    u8 = ctypes.c_uint8.from_address
    if not u8(id(s) + off).value & 3 or u8(id(t) + off).value & 3:
        return None
    return off


def interned(strs):
    """[bool] whether each str of strs (exact strs) is interned."""
    if STR_STATE is None:
        return [False] * len(strs)
    return list(map(bool, map((3).__and__, map(_value, map(_u8_at, map(add, map(id, strs),
                                                                           repeat(STR_STATE)))))))


def _find_module_copy():
    if _V >= (3, 13):
        return None   # 3.13 keeps the copies in the interpreter's cache of extensions
    m = sys
    if _raw(id(m) + _H) != id(m.__dict__):
        return None
    d = _raw(id(m) + _H + _P)
    if not d:
        return None
    c = _nullable((d + _H + 2 * _P,))
    if not c or type(c[0][1]) is not dict or c[0][1].get("__name__") != "sys":
        return None
    return _H + _P, _H + 2 * _P


def module_copy(m):
    """The copy of module m's dict its PyModuleDef keeps, or None."""
    if MODULE_COPY is None:
        return None
    d = _raw(id(m) + MODULE_COPY[0])
    if not d:
        return None
    c = _nullable((d + MODULE_COPY[1],))
    return c[0][1] if c and type(c[0][1]) is dict else None


def _find_stgdict():
    if _V >= (3, 13):
        return None
    import gc

    def _tp_dict(t):
        r = gc.get_referents(type.__dict__["__dict__"].__get__(t))
        return r[0] if len(r) == 1 else None
    proto = type(ctypes.memmove)
    d = _tp_dict(proto)
    t = type(d)
    n = t.__basicsize__ // _P
    w = _words(d, n)
    a = proto.__dict__["_argtypes_"]
    r = proto.__dict__["_restype_"]
    if w.count(id(a)) != 1:
        return None
    i = w.index(id(a))
    if i < 4 or i + 3 >= n or w[i + 2] != id(r):
        return None
    conv = _obj_at(id(d) + _P * (i + 1)).value
    if type(conv) is not tuple or len(conv) != len(a):
        return None
    ci = _tp_dict(ctypes.c_int)
    if type(ci) is not t or _raw(id(ci) + _P * (i - 4)) != id(ctypes.c_int.__dict__["_type_"]):
        return None
    return id(t), tuple((_P * (i + k), name) for k, name in (
        (-4, "proto"), (0, "argtypes"), (1, "converters"), (2, "restype"), (3, "checker")))


def stgdict_fields(d):
    """[(object, name)] of the C fields of ctypes' class dict d."""
    got = _nullable([id(d) + off for off, _ in STGDICT[1]])
    return [(o, STGDICT[1][i][1]) for i, o in got]


if ctypes is not None:
    _u8_at = ctypes.c_uint8.from_address
    for _name, _fn in (("STR_STATE", _find_str_state), ("MODULE_COPY", _find_module_copy),
                       ("STGDICT", _find_stgdict)):
        try:
            globals()[_name] = _fn()
        except Exception:
            pass
    del _name, _fn


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


# -- an instance's __dict__ --------------------------------------------------------
#
# Where an instance keeps the pointer to its __dict__, relative to its
# address: tp_dictoffset when it is positive; for classes with a managed
# dict (3.11+, flag 1 << 4) 3 P before the object (before its GC header,
# in the pre-header; on 3.12 the word holds the inline values instead,
# tagged with its low bit, until a dict is made). Checked at import on an
# instance of this module whose __dict__ was made. Only compared with the
# address of a referent, never followed.

MANAGED_DICT_AT = None


def _find_managed_dict():
    if _V < (3, 11):
        return None

    class _M:
        pass
    m = _M()
    m.a = 1
    d = m.__dict__
    if not type.__dict__["__flags__"].__get__(_M) & (1 << 4) or _raw(id(m) - 3 * _P) != id(d):
        return None
    return -3 * _P


def dict_pointer_offset(t, flags, dictoffset):
    """The offset from an instance of t of the word that holds its
    __dict__ (None where unknown)."""
    if flags & (1 << 4) and _V >= (3, 11):
        return MANAGED_DICT_AT
    if dictoffset > 0:
        return dictoffset
    return None


def words(addrs):
    """[the word at a] for each address a (0 for NULL)."""
    return [w or 0 for w in map(_value, map(_vp_at, addrs))]



# -- a class's shared keys (3.11+) ---------------------------------------------
#
# Instances whose attributes are stored inline (3.11+) keep only the
# values; the names are the keys of one table their class shares, its
# ht_cached_keys: the word after ht_qualname in PyHeapTypeObject. That
# table (PyDictKeysObject, of kind split: 2) is dk_refcnt, then the bytes
# dk_log2_size, dk_log2_index_bytes and dk_kind, dk_version, dk_usable,
# dk_nentries (at 3 P) and the indices (at 4 P, 1 << dk_log2_index_bytes
# bytes), then the entries, (key, value) pairs of 2 P whose keys are the
# attribute names any instance has set, in the order set, never removed.
# The agent reads the names only, as candidates that _edges checks on
# each instance by identity (a name read wrongly names nothing). Checked
# at import on a class of this module with two attributes set from
# outside it; 64-bit little-endian release builds only.

CACHED_KEYS_AT = None


def _find_cached_keys():
    if _V < (3, 11) or _P != 8 or sys.byteorder != "little":
        return None

    class _K:
        pass
    k = _K()
    k.heapscope_probe_first = 1
    k.heapscope_probe_second = 2
    n = type.__basicsize__ // _P
    w = _words(_K, n)
    q = id(type.__dict__["__qualname__"].__get__(_K))
    if w.count(q) != 1 or w.index(q) + 1 >= n:
        return None
    off = _P * (w.index(q) + 1)
    got = _cached_keys(_K, off)
    if got != ("heapscope_probe_first", "heapscope_probe_second"):
        return None
    return off


def _cached_keys(t, off):
    """The names in t's shared keys table at offset off of t, or ()."""
    keys = _raw(id(t) + off)
    if not keys:
        return ()
    head = _raw(keys + _P) or 0
    log2_size, log2_index, kind = head & 0xff, (head >> 8) & 0xff, (head >> 16) & 0xff
    used = _raw(keys + 3 * _P) or 0
    if kind != 2 or log2_size > 16 or log2_index > 20 or used > (1 << log2_size):
        return ()
    first = keys + 4 * _P + (1 << log2_index)
    names = [x for _, x in _nullable(range(first, first + 2 * _P * used, 2 * _P))]
    return tuple(x for x in names if type(x) is str)


def cached_key_names(t, flags):
    """The attribute names in the shared keys table of class t (flags:
    its __flags__), whose instances store their attributes inline; ()
    where unknown."""
    if CACHED_KEYS_AT is None or not flags & (1 << 9) or not flags & (1 << 4 | 1 << 2):
        return ()
    return _cached_keys(t, CACHED_KEYS_AT)


if ctypes is not None:
    try:
        MANAGED_DICT_AT = _find_managed_dict()
    except Exception:
        pass
    try:
        CACHED_KEYS_AT = _find_cached_keys()
    except Exception:
        pass


# -- numpy arrays and memoryviews ------------------------------------------------
#
# What a native holder keeps is often a numpy array, through a memoryview;
# a report says "60 numpy.ndarray float64 (512, 256)" only if the snapshot
# has the shape and the dtype. They are read without running numpy's code:
# the array's C struct (PyArrayObject_fields in numpy's ndarraytypes.h,
# the same from numpy 1.7 to 2.x: the object header, char *data, int nd,
# npy_intp *dimensions, npy_intp *strides, PyObject *base, PyArray_Descr
# *descr) and its descr's type character (PyArray_Descr: the object
# header, PyTypeObject *typeobj, char kind, char type). Each array is
# checked: the word read as its descr must be the dtype object its dtype
# getter gave the edge handler. A memoryview's are read with memoryview's
# own getters (the buffer's format and shape; a released one has none).

if ctypes is not None:                  # without ctypes, array_label is None
    _ND_ND = _H + _P
    _ND_DIMS = _H + 2 * _P
    _ND_DESCR = _H + 5 * _P
    _DESCR_TYPE = _H + _P + 1

# numpy's type characters and struct's format characters (native sizes)
# named as numpy names the types.
_LONG = "int64" if ctypes is not None and ctypes.sizeof(ctypes.c_long) == 8 else "int32"
_ULONG = "u" + _LONG
TYPE_NAMES = {
    "?": "bool", "b": "int8", "B": "uint8", "h": "int16", "H": "uint16", "i": "int32", "I": "uint32",
    "l": _LONG, "L": _ULONG, "q": "int64", "Q": "uint64", "n": "intp", "N": "uintp", "p": "intp", "P": "uintp",
    "e": "float16", "f": "float32", "d": "float64", "g": "longdouble", "F": "complex64", "D": "complex128",
    "G": "clongdouble", "O": "object", "S": "bytes", "U": "str", "V": "void", "M": "datetime64",
    "m": "timedelta64", "c": "bytes1", "x": "pad",
}


def _shape_text(shape):
    return "(" + ", ".join(map(int.__repr__, shape)) + ("," if len(shape) == 1 else "") + ")"


def array_label(a, descr):
    """'float64 (512, 256)' for numpy array a whose dtype object is descr
    (what its dtype getter gave), read from a's C struct; None if the
    words do not match."""
    if ctypes is None:
        return None
    base = id(a)
    if _raw(base + _ND_DESCR) != id(descr):
        return None
    nd = ctypes.c_int.from_address(base + _ND_ND).value
    if nd < 0 or nd > 64:
        return None
    dims = _raw(base + _ND_DIMS) if nd else 0
    if nd and not dims:
        return None
    shape = [ctypes.c_ssize_t.from_address(dims + i * _P).value for i in range(nd)]
    ch = chr(ctypes.c_uint8.from_address(id(descr) + _DESCR_TYPE).value)
    return TYPE_NAMES.get(ch, ch) + " " + _shape_text(shape)


_MV = memoryview.__dict__
_MV_FORMAT = _MV["format"].__get__
_MV_SHAPE = _MV["shape"].__get__


def memoryview_label(m):
    """'float64 (512, 256)' for memoryview m (exact), from its buffer's
    format and shape; 'released' for a released one."""
    try:
        fmt = _MV_FORMAT(m)
        shape = _MV_SHAPE(m)
    except ValueError:
        return "released"
    core = fmt.lstrip("@=<>!")
    name = TYPE_NAMES.get(core, fmt) if len(core) == 1 else fmt
    return name + " " + _shape_text(shape)
