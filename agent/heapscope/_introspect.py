"""Safe introspection for the heapscope agent: reading objects, types,
code and frames without running the program's code.

Every accessor here is the C-level __get__ of a descriptor of a builtin
type, called directly, or a C function (gc.get_referents, sys.getsizeof,
dict.items on exact dicts), so no override in a user class can intervene;
types are compared by identity. It also holds what the agent knows of the
object layout of the running CPython (type flags, GC header and
pre-header sizes, the order of list referents), how the agent recognizes
its own code (is_agent_code: by the file name of the code, for every
module of this package), and how an exception is told to be the
program's (from_host, _host).
"""

import gc
import os
import sys
import types as _types
import _weakref
from itertools import chain, repeat
from operator import is_, itemgetter

_here = os.path.dirname(__file__)
# co_filename of the agent's code is the path its modules were imported
# from, as given; compare with both the given and the normalized form.
# Every module of the package lives in this directory, so all of them are
# the agent's code.
PKG_DIRS = tuple({_here + os.sep, os.path.abspath(_here) + os.sep,
                  os.path.realpath(_here) + os.sep})
PY312 = sys.version_info >= (3, 12)

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

_get_referents = gc.get_referents
_is_tracked = gc.is_tracked
_getrefcount = sys.getrefcount
_getsizeof = sys.getsizeof
_dict_items = dict.items
_dict_get = dict.get
_chain_flat = chain.from_iterable
_second = itemgetter(1)

HAVE_GC = 1 << 14
HEAPTYPE = 1 << 9
MANAGED_DICT = 1 << 4 if sys.version_info >= (3, 11) else 0
MANAGED_WEAKREF = 1 << 3 if PY312 else 0
INLINE_VALUES = sys.version_info >= (3, 11)


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


def type_name(t):
    """module.qualname of type t, read through type's own descriptors."""
    try:
        q = _safe_str(_T_QUALNAME(t))
    except Exception as e:
        _host(e)
        q = "?"
    try:
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


def _has(seq, x):
    """x in seq by identity (`in` would call __eq__ of metaclasses); for
    ints (ids), by value."""
    if type(x) is int:
        return any(map(x.__eq__, seq))
    return any(map(is_, seq, repeat(x)))


def _is_csizeof(f):
    t = type(f)
    return t is _types.MethodDescriptorType or t is _types.WrapperDescriptorType


def c_sizeof(o):
    """The size sys.getsizeof(o) gives, without running the program's
    code: the first C __sizeof__ on o's type's MRO (object.__sizeof__ if
    there is none), plus the GC header and pre-header getsizeof adds. For
    objects whose class defines __sizeof__ in Python. 0 if it fails."""
    t = type(o)
    try:
        s = None
        for c in _T_MRO(t):
            d = _tp_dict(c) if _is_type(c) else None
            if d is not None:
                f = d.get("__sizeof__")
                if _is_csizeof(f):
                    s = f(o)
                    break
        if type(s) is not int:
            s = object.__sizeof__(o)
        fl = _T_FLAGS(t)
        if fl & HAVE_GC:
            s += GC_HEAD
        if fl & (MANAGED_DICT | MANAGED_WEAKREF):
            s += PREHEADER
        return s
    except Exception as e:
        _host(e)
        return 0


def _is_type(c):
    """isinstance(c, type) without isinstance (which may read c.__class__)."""
    return bool(_T_FLAGS(type(c)) & (1 << 31))


def _mro_lookup(t, name):
    """The first value for name in the dicts of t's MRO, without running
    anything (C dict lookups with a str key). Returns (found, value)."""
    for c in _T_MRO(t):
        if not _is_type(c):
            continue
        d = _tp_dict(c)
        if d is not None and name in d:
            return True, d[name]
    return False, None


def safe_attr(o, name, default=None):
    """o.name only if no class in type(o)'s MRO defines name (so no
    descriptor, property or __getattribute__ override can run) and the
    type's attribute lookup is the generic one."""
    t = type(o)
    try:
        if _mro_lookup(t, "__getattribute__")[1] is not object.__getattribute__:
            return default
        if _mro_lookup(t, name)[0]:
            return default
        return object.__getattribute__(o, name)
    except Exception as e:
        _host(e)
        return default


def _copy_str(s):
    return "".join(("", s))


def _has_dict_slot(t):
    try:
        return _mro_lookup(t, "__dict__")[0] and _T_FLAGS(t) & HEAPTYPE and not (
            _T_FLAGS(t) & MANAGED_DICT)
    except Exception as e:
        _host(e)
        return True


def executing_frame_ids():
    ids = set()
    for tid, fr in list(_dict_items(sys._current_frames())):
        while fr is not None:
            ids.add(id(fr))
            fr = _FR_BACK(fr)
    return ids


def materialize_frames():
    """Makes frame objects and (3.11/3.12) f_locals dicts for every
    executing host frame before gc.get_objects(), so that they are listed."""
    for tid, fr in list(_dict_items(sys._current_frames())):
        while fr is not None:
            try:
                code = _FR_CODE(fr)
                if not is_agent_code(code) and _optimized(code):
                    _FR_LOCALS(fr)
            except Exception as e:
                _host(e)
                pass
            fr = _FR_BACK(fr)
    fr = None


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
