"""Safe introspection for the heapscope agent: reading objects, types,
code and frames without running the program's code.

Every accessor here is the C-level __get__ of a descriptor of a builtin
type, called directly, or a C function (gc.get_referents, sys.getsizeof,
dict.items on exact dicts), so no override in a user class can intervene;
types are compared by identity. A name is never looked up in a dict the
program can reach with the dict's own lookup: a key of the program's
whose hash collides with the name would have its __eq__ called. Lookups
go through a copy of the dict's exact-str entries (_str_dict, mro_view),
and getattr is used only where every dict it would search has exact-str
keys only (generic_getattr, plain_storage). A type whose READY flag is
not set is not read beyond its flags. It also holds what the agent knows
of the object layout of the running CPython (type flags, GC header and
pre-header sizes, the order of list referents), how the agent recognizes
its own code (is_agent_code: by the file name of the code, for every
module of this package), and how an exception is told to be the
program's (from_host, _host).
"""

import _thread
import gc
import os
import sys
import types as _types
import _weakref
from itertools import chain, compress, repeat
from operator import is_, is_not, itemgetter

_here = os.path.dirname(__file__)
# co_filename of the agent's code is the path its modules were imported
# from, as given; compare with both the given and the normalized form.
# Every module of the package lives in this directory, so all of them are
# the agent's code.
PKG_DIRS = tuple({_here + os.sep, os.path.abspath(_here) + os.sep,
                  os.path.realpath(_here) + os.sep})
PY311 = sys.version_info >= (3, 11)
PY312 = sys.version_info >= (3, 12)
PY313 = sys.version_info >= (3, 13)

# ---------------------------------------------------------------------------
# C-level accessors. Each is the __get__ of a descriptor of a builtin type,
# called directly, so that no override in a user class can intervene.

_TD = type.__dict__
_T_MRO = _TD["__mro__"].__get__
_T_BASES = _TD["__bases__"].__get__
_T_BASE = _TD["__base__"].__get__
_T_FLAGS = _TD["__flags__"].__get__
_T_DICTPROXY = _TD["__dict__"].__get__
_T_NAME = _TD["__name__"].__get__
_T_QUALNAME = _TD["__qualname__"].__get__
_T_MODULE = _TD["__module__"].__get__
_T_DICTOFFSET = _TD["__dictoffset__"].__get__

_FT = _types.FunctionType
_FD = _FT.__dict__
_FN_FIELDS = []
for _n, _lab in (("__code__", "__code__"), ("__globals__", "__globals__"),
                 ("__defaults__", "__defaults__"), ("__kwdefaults__", "__kwdefaults__"),
                 ("__closure__", "__closure__"), ("__module__", "__module__"),
                 ("__name__", "__name__"), ("__qualname__", "__qualname__"),
                 ("__doc__", "__doc__"), ("__builtins__", "__builtins__")):
    if _n in _FD:
        _FN_FIELDS.append((_FD[_n].__get__, _lab))
_FN_CODE = _FD["__code__"].__get__
_FN_CLOSURE = _FD["__closure__"].__get__
_CO_FREEVARS = _types.CodeType.__dict__["co_freevars"].__get__
_CO_FILENAME = _types.CodeType.__dict__["co_filename"].__get__
_CO_FLAGS = _types.CodeType.__dict__["co_flags"].__get__
_CO_NAMES = _types.CodeType.__dict__["co_names"].__get__
_CO_CONSTS = _types.CodeType.__dict__["co_consts"].__get__
CO_OPTIMIZED = 1
# The objects a code object holds that CodeType's member descriptors give
# (the others, 3.11+, are read by _native.code_fields): (getter, label).
CODE_MEMBERS = tuple(
    (d.__get__, n) for n, d in _types.CodeType.__dict__.items()
    if type(d) is _types.MemberDescriptorType and n in (
        "co_consts", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_filename",
        "co_name", "co_qualname", "co_code", "co_lnotab", "co_linetable", "co_exceptiontable"))


def _optimized(code):
    """Function frames. Reading f_locals of another frame (a class body,
    a module, exec) would copy its fast locals into the namespace mapping
    with PyObject_SetItem: the program's code when the mapping is its own
    (a metaclass's __prepare__, an Enum body)."""
    try:
        return bool(_CO_FLAGS(code) & CO_OPTIMIZED)
    except Exception as e:
        _host(e)
        return False

_CODE = _types.CodeType
# The descriptors of builtin types: id(type) -> (__objclass__, __name__)
# getters (member descriptors, one per type).
DESCRIPTORS = {id(t): (t.__dict__["__objclass__"].__get__, t.__dict__["__name__"].__get__)
               for t in (_types.MethodDescriptorType, _types.ClassMethodDescriptorType,
                         _types.WrapperDescriptorType, _types.GetSetDescriptorType,
                         _types.MemberDescriptorType)}
_FR = _types.FrameType
_FRD = _FR.__dict__
_FR_BACK = _FRD["f_back"].__get__
_FR_CODE = _FRD["f_code"].__get__
_FR_GLOBALS = _FRD["f_globals"].__get__
_FR_BUILTINS = _FRD["f_builtins"].__get__
_FR_LOCALS = _FRD["f_locals"].__get__

_FLP = type((lambda: sys._getframe().f_locals)())
_FLP_ITEMS = _FLP.__dict__["items"] if _FLP is not dict and "items" in _FLP.__dict__ else None

_MT = _types.MethodType
_MT_FUNC = _MT.__dict__["__func__"].__get__
_MT_SELF = _MT.__dict__["__self__"].__get__
_BT = _types.BuiltinFunctionType
_BT_SELF = _BT.__dict__["__self__"].__get__
_BT_MODULE = _BT.__dict__["__module__"].__get__
_MW = _types.MethodWrapperType
_MW_SELF = _MW.__dict__["__self__"].__get__
_CELL = _types.CellType
_CELL_GET = _CELL.__dict__["cell_contents"].__get__
_MOD = _types.ModuleType
_MOD_DICT = _MOD.__dict__["__dict__"].__get__
_WREF = _weakref.ReferenceType
_WREF_CALL = _WREF.__call__
_WREF_CB = _WREF.__dict__["__callback__"].__get__
_MEMBER = _types.MemberDescriptorType
_MEMBER_CLASS = _MEMBER.__dict__["__objclass__"].__get__

_get_referents = gc.get_referents
_is_tracked = gc.is_tracked
_getrefcount = sys.getrefcount
_getsizeof = sys.getsizeof
_dict_items = dict.items
_dict_len = dict.__len__
_dict_keys = dict.keys
_dict_get = dict.get
_getattr = getattr
_chain_flat = chain.from_iterable
_second = itemgetter(1)

HAVE_GC = 1 << 14
HEAPTYPE = 1 << 9
# Py_TPFLAGS_READY: the type went through PyType_Ready. Of a type without
# it only tp_flags (__flags__, a plain member read) may be read: its MRO,
# bases and dict may be NULL (an extension's static type used before it
# is readied: _testcapi on 3.9-3.11 has one), and some getters do not
# check (__bases__ crashed 3.9-3.11).
READY = 1 << 12
MANAGED_DICT = 1 << 4 if sys.version_info >= (3, 11) else 0
MANAGED_WEAKREF = 1 << 3 if PY312 else 0
INLINE_VALUES = sys.version_info >= (3, 11)


def _hash_seed_fixed():
    """Whether str and bytes hashes are predictable here: PYTHONHASHSEED
    set to a number (0 turns randomization off). Otherwise they are
    keyed by a secret random per process (SipHash), and a digest cannot
    be recomputed outside the process to guess the text behind it."""
    if not sys.flags.hash_randomization:
        return True
    v = os.environ.get("PYTHONHASHSEED")
    return v is not None and v not in ("", "random")


HASH_SEED_FIXED = _hash_seed_fixed()


def _probe_sizes():
    class _P:
        pass

    class _Q:
        __slots__ = ()
    p = _P()
    q = _Q()
    gc_head = _getsizeof(q) - object.__sizeof__(q)
    managed = _getsizeof(p) - object.__sizeof__(p) - gc_head
    return gc_head, managed


GC_HEAD, PREHEADER = _probe_sizes()
_a, _b = object(), object()
LIST_BACKWARDS = _get_referents([_a, _b])[0] is _b
del _a, _b


def is_agent_code(code):
    try:
        fn = _CO_FILENAME(code)
    except Exception:
        return False
    return type(fn) is str and fn.startswith(PKG_DIRS)


def _safe_str(x, default="?"):
    return x if type(x) is str else default


def type_name(t, view=None):
    """module.qualname of type t, read through type's own descriptors. A
    class's __module__ is read from the exact-str entries of its own
    dict (the descriptor would look it up with the dict's own
    comparison); view, t's mro_view, has them already. A type that is
    not ready (its fields may be NULL) is not read, unless it is a static
    type, whose name comes from its C tp_name."""
    fl = _T_FLAGS(t)
    if not fl & READY and fl & HEAPTYPE:
        return "?"
    try:
        q = _safe_str(_T_QUALNAME(t))
    except Exception as e:
        _host(e)
        q = "?"
    try:
        if fl & HEAPTYPE:
            if view is not None and view[2] and view[2][0][0] is t:
                m = view[2][0][1].get("__module__")
            else:
                d = _tp_dict(t)
                m = _str_get(d, "__module__")[1] if d is not None else ""
            m = _safe_str(m, "")
        else:
            m = _safe_str(_T_MODULE(t), "")
    except Exception as e:
        _host(e)
        m = ""
    if not m or m == "builtins":
        return q
    return m + "." + q


def _tp_dict(t):
    """The type's real __dict__ (tp_dict), not a proxy."""
    r = _get_referents(_T_DICTPROXY(t))
    return r[0] if r and type(r[0]) is dict else None


def _str_dict(d):
    """The entries of dict d whose keys are exact str, as a new dict made
    in one C-level call. A lookup in it compares strs with str's own
    comparison; a lookup in d itself would call the __eq__ of any key of
    the program's whose hash collides with the name."""
    return dict(compress(_dict_items(d), map(is_, map(type, _dict_keys(d)), repeat(str))))


def _clean(d):
    """Whether every key of dict d is an exact str."""
    return not any(map(is_not, map(type, _dict_keys(d)), repeat(str)))


def _str_get(d, name):
    """(found, value) of the entry of dict d whose key is the exact str
    name; keys of other types are never compared."""
    s = _str_dict(d)
    if name in s:
        return True, s[name]
    return False, None


def mro_view(t):
    """What attribute lookup on type t sees, read safely: (names, clean,
    dicts), where names maps every exact-str name that a dict of t's MRO
    defines to its value (the first class in the MRO wins, as in lookup),
    clean says every key of those dicts is an exact str, and dicts lists
    (class, its exact-str entries) in MRO order. When clean is False, a
    lookup by name in one of them (getattr, sys.getsizeof, the attribute
    cache) could call a key's __eq__: the agent then does none. None if
    t is not ready or its MRO is not a tuple of types. The view holds
    references to the classes' attributes: it is for the moment, never
    kept across chunks."""
    if not _T_FLAGS(t) & READY:
        return None
    mro = _T_MRO(t)
    if type(mro) is not tuple:
        return None
    names = {}
    clean = True
    dicts = []
    for c in reversed(mro):
        if not _is_type(c) or not _T_FLAGS(c) & READY:
            return None
        d = _tp_dict(c)
        if d is None:
            continue
        s = _str_dict(d)
        if len(s) != len(d):
            clean = False
        names.update(s)
        dicts.append((c, s))
    dicts.reverse()
    return names, clean, dicts


def _has(seq, x):
    """x in seq by identity (`in` would call __eq__ of metaclasses); for
    ints (ids), by value."""
    if type(x) is int:
        return any(map(x.__eq__, seq))
    return any(map(is_, seq, repeat(x)))


def _is_csizeof(f):
    t = type(f)
    return t is _types.MethodDescriptorType or t is _types.WrapperDescriptorType


class CSizer:
    """The size sys.getsizeof(o) gives for objects of one type, without
    running the program's code or looking up a name in its classes'
    dicts: the first C __sizeof__ on the type's MRO (object.__sizeof__
    if there is none), plus the GC header and pre-header getsizeof adds.
    For types whose __sizeof__ is Python code, or whose dicts have keys
    other than exact strs. 0 if it fails."""

    __slots__ = ("f", "extra")

    def __init__(self, t):
        f = None
        mro = _T_MRO(t) if _T_FLAGS(t) & READY else None
        if type(mro) is tuple:
            for c in mro:
                d = _tp_dict(c) if _is_type(c) else None
                if d is not None:
                    g = _str_get(d, "__sizeof__")[1]
                    if _is_csizeof(g):
                        f = g
                        break
        self.f = f if f is not None else object.__sizeof__
        fl = _T_FLAGS(t)
        self.extra = (GC_HEAD if fl & HAVE_GC else 0) + (
            PREHEADER if fl & (MANAGED_DICT | MANAGED_WEAKREF) else 0)

    def __call__(self, o):
        try:
            s = self.f(o)
            if type(s) is not int:
                s = object.__sizeof__(o)
            return s + self.extra
        except Exception as e:
            _host(e)
            return 0


def _is_type(c):
    """isinstance(c, type) without isinstance (which may read c.__class__)."""
    return bool(_T_FLAGS(type(c)) & (1 << 31))


def _mro_lookup(t, name):
    """The first value for name in the dicts of t's MRO, comparing exact
    str keys only (see mro_view). Returns (found, value)."""
    v = mro_view(t)
    if v is None or name not in v[0]:
        return False, None
    return True, v[0][name]


def generic_getattr(view):
    """Whether attribute lookup on instances of the type whose mro_view
    is view is object's own, with no name lookup that could compare a
    key of the program's: no __getattribute__ but object's, no
    __getattr__, every key an exact str."""
    return (view is not None and view[1] and "__getattr__" not in view[0]
            and view[0].get("__getattribute__") is object.__getattribute__)


def plain_storage(rs):
    """Whether getattr can look into the instance whose gc referents are
    rs without comparing a key of the program's. An instance's attributes
    are in its inline values (3.11+: a lookup there compares strs only)
    or in its __dict__: a lookup by name in a dict with keys of the
    program's could call their __eq__. The dict is among the referents;
    any dict referent with other than exact-str keys fails the test."""
    return all(map(_clean, compress(rs, map(is_, map(type, rs), repeat(dict)))))


def safe_attr(o, name, default=None):
    """o.name only if no class in type(o)'s MRO defines name (so no
    descriptor, property or __getattribute__ override can run), the
    type's attribute lookup is the generic one, and no lookup on the way
    compares a key of the program's (generic_getattr, plain_storage)."""
    try:
        view = mro_view(type(o))
        if not generic_getattr(view) or name in view[0]:
            return default
        if not plain_storage(_get_referents(o)):
            return default
        return _getattr(o, name, default)
    except Exception as e:
        _host(e)
        return default


def _copy_str(s):
    return "".join(("", s))


def _has_dict_slot(t, view):
    try:
        return "__dict__" in view[0] and _T_FLAGS(t) & HEAPTYPE and not (
            _T_FLAGS(t) & MANAGED_DICT)
    except Exception as e:
        _host(e)
        return True


# The threads' current frames as sys._current_frames() gave them before a
# fork: a fork capture's child reads them here (it must not walk the
# interpreter's thread list, whose lock another thread may have held at
# the fork). None elsewhere.
FRAMES = [None]


def current_frames():
    """sys._current_frames(), or in a fork capture's child the frames
    taken before the fork, with the calling thread's own (the child's one
    thread, which did not exist then)."""
    d = FRAMES[0]
    if d is None:
        return sys._current_frames()
    d = dict(d)
    d[_thread.get_ident()] = sys._getframe(1)
    return d


def materialize_frames():
    """Makes the frame objects of the threads' current frames (3.11+
    keeps a running frame as an object only once something asks for it)
    before a capture lists the objects, as a fork capture's child finds
    them made, so that both list the same. None in the child."""
    if FRAMES[0] is None:
        sys._current_frames()


def executing_frame_ids():
    ids = set()
    for tid, fr in list(_dict_items(current_frames())):
        while fr is not None:
            ids.add(id(fr))
            fr = _FR_BACK(fr)
    return ids


_EXC_TB = BaseException.__dict__["__traceback__"].__get__
_TB_NEXT = _types.TracebackType.__dict__["tb_next"].__get__
_TB_FRAME = _types.TracebackType.__dict__["tb_frame"].__get__


def _host(e):
    """Re-raises e if the program's code raised it (see from_host)."""
    if from_host(e):
        raise e


def from_host(e):
    """Whether exception e was raised by the program's code: a signal
    handler that ran while the agent worked (the agent calls no code of
    the program, so that is the only way). Such exceptions belong to the
    program and are re-raised, not swallowed."""
    try:
        tb = _EXC_TB(e)
        last = None
        while tb is not None:
            last = tb
            tb = _TB_NEXT(tb)
        if last is None:
            return False
        return not is_agent_code(_FR_CODE(_TB_FRAME(last)))
    except Exception:
        return False
