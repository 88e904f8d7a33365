"""The C fields of objects other than frames and code that the agent
reads directly, with ctypes (each in its section below): what a
descriptor, a class and a module hold that gc.get_referents does not
report, whether a str is interned, the C fields of ctypes' class dicts,
where an instance keeps its __dict__, the attribute names a class's
instances share (3.11+), the dtype and shape of numpy arrays and
memoryviews, and the maxlen of deques. Every layout is checked at import on objects of the
agent's own; a check that fails leaves that part unread (its constant
stays None). Pointers are read and referenced in one C-level call, as
_native's are (_native has the primitives and says why).
"""

import sys
from _collections import deque as DEQUE
from itertools import repeat
from operator import add

from ._native import ctypes, _V, _P, _H, _value, _obj_at, _raw, _words, _changed, _nullable

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
# interpreter state (read there, see _interp).

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


if ctypes is not None:
    for _name, _fn in (("DESCR_QUALNAME", _find_descr_qualname), ("TYPE_SUBCLASSES", _find_type_subclasses)):
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


# deque's own maxlen getter, called directly: it reads the deque's C
# field (None or an int), on a deque subclass too, whose own maxlen (a
# property, say) it never runs.
DEQUE_MAXLEN = DEQUE.__dict__["maxlen"].__get__
