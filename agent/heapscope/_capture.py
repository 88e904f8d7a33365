"""The heap walker of the heapscope agent.

Rules this module lives by (see agent/doc.go and docs/pysnap-format.md):

* It never runs code of the host's classes: no repr/str/eq/hash/len/iter or
  getattr on user objects. It reads objects through C-level functions on
  exact builtin types only: gc.get_referents, type(), id(), sys.getsizeof
  (only when the type's __sizeof__ is implemented in C), dict.items on
  exact dicts, and the C descriptors of builtin types called directly
  (type.__dict__['__mro__'].__get__(t) and the like). Types are compared
  and hashed by id (a metaclass may define __eq__ and __hash__). The one
  getattr it does (naming inline attributes, see _name_inline) is limited
  to classes and names for which it cannot reach Python code.
* Work is done a chunk of objects at a time with vectorized C-level calls
  (map, itertools, array), so that the per-object cost stays close to a
  bare gc.get_referents traversal. A chunk is grouped by kind and type
  (one list per type, filled in one C-level pass); each kind has a handler
  that emits the edges of all its objects at once.
  Sizes of exact str/bytes/int/float/list/tuple/dict and plain instances
  are the type's C __sizeof__ called directly plus a per-type constant
  learnt from sys.getsizeof on the first object (much cheaper than
  sys.getsizeof per object); values and STRINGS of ASCII text are joined
  as one str and encoded once.
* Phase 1 walks gc.get_objects(), except exact dicts and tuples, which
  wait until the objects that give their entries names (modules, classes,
  instances, functions with closures) are done. Objects gc.get_objects()
  does not list (untracked str/int/float/tuple/dict, numpy arrays,
  executing frames, frozen objects) are discovered as edge targets and
  queued; an untracked target whose reference count says it has exactly
  one referrer is queued without a seen-set (it cannot be met again),
  which keeps the seen-set small; such objects are written with the
  reference count 1 measured then (no second measurement).
* While a chunk's reference counts are measured, the agent holds exactly
  `self.rc_offset` references to each object of the chunk (its container
  list, the chunk list and the iterator of map); this is calibrated on a
  probe object run through the same code. The agent keeps no other
  reference to any object of the heap across chunks (types, keys and
  numpy.ndarray are remembered by id, cached key labels by copies).
* Its own bookkeeping (lists, sets, frames) is created after
  gc.get_objects() and is reachable from no host object, so it is not in
  the snapshot; agent frames that exist before are filtered by file name.
"""

import gc
import os
import sys
import time
import types as _types
import _weakref
from array import array
from itertools import chain, compress, filterfalse, repeat
from operator import not_, add, sub, is_, and_, itemgetter

from . import _format as F

_here = os.path.dirname(__file__)
# co_filename of the agent's code is the path its modules were imported
# from, as given; compare with both the given and the normalized form.
PKG_DIRS = tuple({_here + os.sep, os.path.abspath(_here) + os.sep,
                  os.path.realpath(_here) + os.sep})
CHUNK = 1 << 14
MAX_NAMES = 1 << 18        # edge names deduplicated; later new names are written as they come
MAX_KEYCACHE = 1 << 16     # cached dict-key labels
MAX_WARNINGS = 200
MASK64 = (1 << 64) - 1
PY312 = sys.version_info >= (3, 12)
IMMORTAL_MIN = (1 << 30) - 64

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
_CSIZEOF_TYPES = (_types.MethodDescriptorType, _types.WrapperDescriptorType)

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

# Object kinds; a chunk is grouped by kind and each kind has a handler.
(K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT, K_NDARRAY, K_GENERIC, K_LIST,
 K_TUPLE, K_DICT, K_INST, K_INSTX, K_DICTLIKE, K_MODULE, K_TYPE, K_FUNC,
 K_FRAME, K_CELL, K_METHOD, K_BMETHOD, K_WEAKREF, K_MWRAPPER) = range(22)
LEAVES = (K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT)
# Kinds whose objects are never gc-tracked (not GC types).
UNTRACKABLE = (K_STR, K_BYTES, K_INT, K_FLOAT)
# Kinds whose sizes are the type's C __sizeof__ plus a per-type constant
# (the GC header and pre-header that sys.getsizeof adds).
SIZER_KINDS = (K_STR, K_BYTES, K_INT, K_FLOAT, K_LIST, K_TUPLE, K_DICT, K_INST)
SKEY_SHIFT = 22
SKEY_MULTI = (1 << SKEY_SHIFT) - 1   # sort key type part shared by several types


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


class Capture:
    """One snapshot's state. Created after gc.get_objects()."""

    def __init__(self, w, values, max_value_len, warnings):
        self.w = w
        self.values = values
        self.vlen = max_value_len
        self.warnings = warnings
        self.names = {"": 0}
        self.nnames = 1
        self.new_strings = []
        self.types_addr = []
        self.types_name = []
        self.ntypes = 0
        self.tkind = {}          # id(type) -> kind
        self.skey = {}           # id(type) -> sort key: kind << 22 | type index
        self.skey_tid = {}       # sort key of a single type -> id(type)
        self.sizer = {}          # id(type) -> C __sizeof__ of the type (safe kinds only)
        self.sizeoff = {}        # id(type) -> getsizeof(o) - sizer(o), learnt on the first object
        self.tindex = {}         # id(type) -> type index
        self.unsafe_size = {}    # id(type) -> True for types with a Python __sizeof__
        self.keycache_item = {}  # copy of a str key -> label of ['key']
        self.keycache_attr = {}  # copy of a str key -> label of .key
        self.attr_dicts = set()  # ids of dicts whose entries are attributes
        self.closures = {}       # id(closure tuple) -> tuple of labels
        self.frames_done = set()
        self.exec_frames = set()  # ids of executing frames (stack walk)
        self.seen = set()        # ids of objects queued (non-unique untracked, frames, frozen)
        self.tracked_ids = None  # ids of gc.get_objects() when objects are frozen
        self.pending = []        # queued objects whose reference count is measured
        self.pending_uniq = []   # untracked objects known to have exactly one referrer
        self.deferred = []
        self.defer = True
        self.rc_offset = 0
        self.uniq_rc = 0
        self.ndarray_id = None   # id(numpy.ndarray); no reference is kept
        self.layouts = {}        # (id(type), referent count) -> inline layout
        self.inline_names = {}   # id(type) -> candidate attribute names (copies)
        self.L = {}
        for s in ("<key>", "__dict__", "__class__", "__mro__", "__bases__", "__base__",
                  "__closure__", "__globals__", "f_back", "f_code", "f_globals",
                  "f_builtins", "f_locals", "f_trace", "__self__", "__func__",
                  "cell_contents", "base", "__callback__", "__name__", "__qualname__",
                  "__module__", "<referent>"):
            self.L[s] = self.name(s)
        internal = F.INTERNAL
        self.L_KEY = self.L["<key>"]
        self.L_CLASS = self.L["__class__"] | internal
        self.L_DICT = self.L["__dict__"]
        self._tails = _Tails(self.L_CLASS)
        np = sys.modules.get("numpy")
        if np is not None and type(np) is _MOD:
            nd = _dict_get(_MOD_DICT(np), "ndarray")
            if type(nd) is type:
                self.ndarray_id = id(nd)
            nd = None

    # -- strings, names, warnings ------------------------------------------

    def warn(self, msg):
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(msg)
        elif len(self.warnings) == MAX_WARNINGS:
            self.warnings.append("more warnings were dropped")

    def name(self, s):
        """String index of s in the file's string table. The first
        MAX_NAMES strings are deduplicated; later ones are written as they
        come (bounded memory for heaps with millions of distinct keys)."""
        i = self.names.get(s)
        if i is None:
            # A copy: s may be the program's (a type's __qualname__, a
            # module name), and the tables must not hold its references.
            s = _copy_str(s)
            i = self.nnames
            self.nnames += 1
            if i < MAX_NAMES:
                self.names[s] = i
            self.new_strings.append(s)
        return i

    def names_of(self, strs, distinct=False):
        """name() for a list of strings, vectorized (distinct: no two
        are equal)."""
        res = list(map(self.names.get, strs))
        if distinct and res.count(None) == len(res):
            start = self.nnames
            self.nnames += len(strs)
            self.new_strings.extend(strs)
            res = list(range(start, self.nnames))
            if len(self.names) < MAX_NAMES:
                self.names.update(zip(strs, res))
            return res
        if None in res:
            new = list(dict.fromkeys(compress(strs, map(is_, res, repeat(None)))))
            start = self.nnames
            self.nnames += len(new)
            idx = dict(zip(new, range(start, start + len(new))))
            self.new_strings.extend(new)
            # Known names keep their index (the default of idx.get).
            res = list(map(idx.get, strs, res))
            if len(self.names) < MAX_NAMES:
                self.names.update(idx)
        return res

    def flush_tables(self):
        ns = self.new_strings
        if ns:
            if all(map(str.isascii, ns)):
                self.w.blob_section(F.STRINGS, len(ns), _ascii_blob(ns))
            else:
                self.w.strings(list(map(str.encode, ns, repeat("utf-8"), repeat("backslashreplace"))))
            self.new_strings = []
        if self.types_addr:
            self.w.types(self.types_addr, self.types_name)
            self.types_addr = []
            self.types_name = []

    # -- types ------------------------------------------------------------

    def register(self, t):
        """Registers type t (found as type(o) of some o) and returns its kind."""
        tid = id(t)
        k = self.tkind.get(tid)
        if k is not None:
            return k
        self.tindex[tid] = self.ntypes
        self.ntypes += 1
        self.types_addr.append(tid)
        self.types_name.append(self.name(type_name(t)))
        try:
            k = self._kind(t)
        except Exception as e:  # a broken MRO, say
            _host(e)
            self.warn("type %s: %s; its objects get unnamed edges" % (type_name(t), _T_NAME(type(e))))
            k = K_GENERIC
        try:
            found, sz = _mro_lookup(t, "__sizeof__")
            if found and not _is_csizeof(sz):
                self.unsafe_size[tid] = True
                self.warn("type %s defines __sizeof__ in Python; its sizes are object.__sizeof__ "
                          "of the nearest builtin base plus the GC header" % type_name(t))
        except Exception as e:
            _host(e)
            self.unsafe_size[tid] = True
        if k in SIZER_KINDS and not self.unsafe_size.get(tid):
            try:
                found, sz = _mro_lookup(t, "__sizeof__")
                if found and _is_csizeof(sz):
                    self.sizer[tid] = sz
            except Exception as e:
                _host(e)
        ti = self.tindex[tid]
        self.skey[tid] = (k << 22) | (ti if ti < (1 << 22) else (1 << 22) - 1)
        if ti < SKEY_MULTI:
            self.skey_tid[self.skey[tid]] = tid
        self.tkind[tid] = k
        return k

    def _kind(self, t):
        if t is str:
            return K_STR
        if t is bytes:
            return K_BYTES
        if t is int:
            return K_INT
        if t is float:
            return K_FLOAT
        if t is list:
            return K_LIST
        if t is tuple:
            return K_TUPLE
        if t is dict:
            return K_DICT
        if t is _FT:
            return K_FUNC
        if t is _FR:
            return K_FRAME
        if t is _CELL:
            return K_CELL
        if t is _MT:
            return K_METHOD
        if t is _BT:
            return K_BMETHOD
        if t is _MW:
            return K_MWRAPPER
        mro = _T_MRO(t)
        if _has(mro, type):
            return K_TYPE
        if _has(mro, _MOD):
            return K_MODULE
        if _has(mro, _WREF):
            return K_WEAKREF
        if self.ndarray_id is not None and _has(map(id, mro), self.ndarray_id):
            return K_NDARRAY
        flags = _T_FLAGS(t)
        if not flags & HAVE_GC:
            return K_LEAF
        if _has(mro, dict):
            return K_DICTLIKE
        if flags & HEAPTYPE:
            # Plain: every non-heap base is object, no slots holding
            # objects, and the dict (if any) is managed or absent.
            for c in mro:
                if c is object:
                    continue
                if not _T_FLAGS(c) & HEAPTYPE:
                    return K_INSTX
                d = _tp_dict(c)
                if d is None:
                    return K_INSTX
                if "__slots__" in d:
                    for v in d.values():
                        if type(v) is _MEMBER:
                            return K_INSTX
            if flags & MANAGED_DICT or not _has_dict_slot(t):
                return K_INST
            return K_INSTX
        return K_GENERIC

    # -- labels ---------------------------------------------------------------

    def key_labels(self, keys, attr, distinct=False):
        """Labels of dict values stored under keys (a list; distinct: the
        keys of one dict)."""
        n = len(keys)
        if not n:
            return []
        isstr = list(map(is_, map(type, keys), repeat(str)))   # identity: never compare types
        if all(isstr):
            return self._str_labels(keys, attr, distinct)
        res = [0] * n
        si = list(compress(range(n), isstr))
        if si:
            for i, l in zip(si, self._str_labels(list(map(keys.__getitem__, si)), attr)):
                res[i] = l
        for i in compress(range(n), map(not_, isstr)):
            k = keys[i]
            tk = type(k)
            if tk is int:
                if -(1 << 62) < k < (1 << 62):
                    res[i] = self.name("[" + repr(k) + "]")
            elif tk is float or tk is bool or k is None:
                res[i] = self.name("[" + repr(k) + "]")
        return res

    def _str_labels(self, keys, attr, distinct=False):
        # The cache is keyed by copies of the keys (not the host's str
        # objects, whose reference counts must not change).
        cache = self.keycache_attr if attr else self.keycache_item
        res = list(map(cache.get, keys))
        if None in res:
            # Distinct missing keys (exact strs; hashing and comparing them
            # runs no code of the program).
            allmiss = res.count(None) == len(res)
            if allmiss:
                # Exact str keys of one dict are distinct by value.
                uk = keys if distinct else list(dict.fromkeys(keys))
            else:
                uk = list(dict.fromkeys(compress(keys, map(is_, res, repeat(None)))))
            if attr:
                labs = list(map(add, repeat("."), map(str.__getitem__, uk, repeat(slice(0, 128)))))
            else:
                # "[%r]" % k is "[" + repr(k[:80])[:64] + "]" when it has
                # at most 66 characters (then len(k) <= 80 too).
                labs = list(map("[%r]".__mod__, uk))
                if max(map(len, labs)) > 66:
                    labs = list(map(add, map(add, repeat("["), map(str.__getitem__, map(repr, map(
                        str.__getitem__, uk, repeat(slice(0, 80)))), repeat(slice(0, 64)))), repeat("]")))
                    distinct = False   # truncated labels may collide
            # Labels of distinct keys are distinct ("[%r]" untruncated;
            # "." + key when no key is over 128 characters).
            if attr and distinct and max(map(len, uk)) > 128:
                distinct = False
            ids = self.names_of(labs, allmiss and distinct and len(uk) == len(keys))
            del labs
            if allmiss and len(uk) == len(keys):
                res = ids    # distinct keys, none cached: ids is in key order
            else:
                # local holds the program's keys only while this runs; the
                # cache keeps copies (the keys' reference counts must not
                # change across chunks).
                local = dict(zip(uk, ids))
                res = list(map(local.get, keys, res))
                del local
            room = MAX_KEYCACHE - len(cache)
            if room > 0:
                cache.update(zip(map("".join, zip(repeat(""), uk[:room])), ids[:room]))
            del uk
        return res

    def _str_key_label(self, k, attr):
        if attr:
            return self.name("." + k[:128])
        return self.name("[" + repr(k[:80])[:64] + "]")

    # -- the chunk pipeline ---------------------------------------------------

    def calibrate(self):
        # The same shape as run_batch -> chunk -> _emit: a container list,
        # a chunk list made from it, and map's iterator.
        probe = object()  # one reference: this local
        container = [probe]
        box = [container[0:1]]
        chunk = box.pop()
        self.rc_offset = self._measure(chunk)[0] - 1
        del probe, container, chunk
        holder = [float("7.25")]  # the float's one reference: holder
        untr, rl = self._untracked_rc(list(holder))
        self.uniq_rc = rl[0]
        del holder, untr, rl

    def _measure(self, chunk):
        # The container (or, in calibration, the local), chunk and map's
        # iterator hold one reference each while getrefcount runs.
        return list(map(_getrefcount, chunk))

    def _untracked_rc(self, tgt):
        untr = list(filterfalse(_is_tracked, tgt))
        rl = list(map(_getrefcount, untr))
        return untr, rl

    def run_batch(self, container, rc1=False):
        """Processes container (a list that holds the only agent reference
        to each of its objects) chunk by chunk. rc1: every object is known
        to have exactly one referrer (an untracked object whose count was
        measured when it was discovered)."""
        n = len(container)
        lo = 0
        box = []
        while lo < n:
            # Passed in a box: before 3.11 a call's arguments stay on the
            # caller's stack until it returns, and the slice would hold a
            # second reference to each object while it is measured.
            box.append(container[lo:lo + CHUNK])
            self.chunk(box, rc1)
            lo += CHUNK

    def chunk(self, box, rc1=False):
        sl = box.pop()
        n = len(sl)
        sk = self.skey.get
        keys = list(map(sk, map(id, map(type, sl))))
        if None in keys:
            # New types: register each once (a dict keyed by id: hashing a
            # type could run its metaclass's __hash__). The keys come from
            # the registered tids (a __class__ assignment by another thread
            # in between must not leave a key unknown).
            tids = list(map(id, map(type, sl)))
            miss = list(compress(sl, map(is_, keys, repeat(None))))
            for t in dict(zip(map(id, map(type, miss)), map(type, miss))).values():
                self.register(t)
            del miss, t
            keys = list(map(sk, tids))
            del tids
        # Group by type (kind first): one list per sort key, filled by C
        # code in one pass (no sort). One type: no reordering.
        k0 = keys[0]
        if keys.count(k0) == n:
            groups = [(k0, sl)]
        else:
            d = dict.fromkeys(keys)
            for k in d:
                d[k] = []
            any(map(list.append, map(d.__getitem__, keys), sl))
            groups = sorted(d.items())   # distinct int keys: the lists are never compared
            del d
        del sl, keys
        # Exclusions: deferred dicts/tuples (phase 1) and agent frames.
        parts = []
        bounds = []
        pos = 0
        while groups:
            sk_, g = groups.pop(0)
            k = sk_ >> SKEY_SHIFT
            if k == K_FRAME or (self.defer and (k == K_DICT or k == K_TUPLE)):
                if k != K_FRAME:
                    self.deferred.extend(g)
                    continue
                g = [f for f in g if not is_agent_code(_FR_CODE(f))]
                self.frames_done.update(map(id, g))
                if not g:
                    continue
            parts.append(g)
            bounds.append((sk_, pos, pos + len(g)))
            pos += len(g)
        del groups, g
        if not parts:
            return
        chunk = parts[0] if len(parts) == 1 else list(chain.from_iterable(parts))
        del parts
        self._emit(chunk, bounds, rc1)

    def _emit(self, chunk, bounds, rc1=False):
        # Reference counts first, while the agent holds exactly
        # rc_offset references to each object.
        n = len(chunk)
        if rc1:
            rca = F.u64s((1,)) * n
        else:
            rc = self._measure(chunk)
            off = self.rc_offset
            try:
                rca = F.u64s(list(map(sub, rc, repeat(off))))
            except OverflowError:  # a count that fell while measured
                rca = F.u64s([x - off if x > off else 0 for x in rc])
            del rc
        addr = F.u64s(list(map(id, chunk)))
        # Types, sizes and flags, a group (one type, or several that share
        # a sort key) at a time.
        typ = F.u32s()
        size = F.u64s()
        flags = bytearray()
        tix = self.tindex
        for sk_, i, j in bounds:
            k = sk_ >> SKEY_SHIFT
            m = j - i
            g = chunk[i:j]
            single = (sk_ & SKEY_MULTI) != SKEY_MULTI
            if single:
                tid = self.skey_tid[sk_]
                typ.extend(F.u32s((tix[tid],)) * m)
            else:
                gtids = list(map(id, map(type, g)))
                tid = gtids[0]
                typ.extend(F.u32s(list(map(tix.__getitem__, gtids))))
            sz = self.sizer.get(tid) if single else None
            if sz is not None:
                off = self.sizeoff.get(tid)
                if off is None:
                    off = self.sizeoff[tid] = self._sizeoff(g[0], sz)
                if off == 0:
                    size.extend(F.u64s(list(map(sz, g))))
                elif off > 0:
                    size.extend(F.u64s(list(map(off.__add__, map(sz, g)))))
                else:
                    sz = None
            if sz is None:
                if not self.unsafe_size or (self.unsafe_size.keys().isdisjoint(gtids) if not single
                                            else tid not in self.unsafe_size):
                    try:
                        size.extend(F.u64s(list(map(_getsizeof, g))))
                    except Exception as e:
                        _host(e)
                        size.extend(F.u64s(list(map(self._size_one, g))))
                else:
                    size.extend(F.u64s(list(map(self._size_one, g))))
            if k in UNTRACKABLE:
                flags.extend(bytes(m))
            else:
                flags.extend(map(_is_tracked, g))
            del g
        if PY312:
            for i in compress(range(n), map(IMMORTAL_MIN.__le__, rca)):
                flags[i] |= F.F_IMMORTAL
        # Edges.
        ne = F.u32s()
        tgt = []
        lab = F.u32s()
        weak = []
        self.opaque = []
        vals_addr = F.u64s()
        vals = []
        dig_addr = F.u64s()
        dig = array("q")
        for sk_, i, j in bounds:
            k = sk_ >> SKEY_SHIFT
            g = chunk[i:j]
            try:
                self._edges(k, g, i, ne, tgt, lab, weak)
            except Exception as e:
                _host(e)
                # Undo this group's partial output and fall back.
                self.warn("%s while naming edges of %d objects (kind %d); they get unnamed edges"
                          % (_T_NAME(type(e)), len(g), k))
                want = i
                del ne[want:]
                m = sum(ne)
                del tgt[m:]
                del lab[m:]
                self._generic(g, ne, tgt, lab)
            if k == K_STR or k == K_BYTES:
                dig_addr.extend(addr[i:j])
                dig.extend(array("q", list(map(hash, g))))
                if self.values:
                    vals_addr.extend(addr[i:j])
                    vl = self.vlen
                    if k == K_STR:
                        if all(map(str.isascii, g)):
                            if max(map(len, g)) > vl:
                                g = list(map(str.__getitem__, g, repeat(slice(0, vl))))
                            vals.append(_ascii_blob(g))
                        else:
                            vals.append(_blob(list(map(str.encode, map(str.__getitem__, g, repeat(slice(0, vl))),
                                                       repeat("utf-8"), repeat("backslashreplace")))))
                    else:
                        vals.append(_ascii_blob(list(map(repr, map(bytes.__getitem__, g,
                                                                   repeat(slice(0, vl)))))))
            elif self.values and (k == K_INT or k == K_FLOAT):
                if k == K_INT:
                    sel = list(map((63).__ge__, map(int.bit_length, g)))
                    if all(sel):
                        vals_addr.extend(addr[i:j])
                        vals.append(_ascii_blob(list(map(int.__repr__, g))))
                    else:
                        vals_addr.extend(compress(addr[i:j], sel))
                        vals.append(_ascii_blob(list(map(int.__repr__, compress(g, sel)))))
                else:
                    vals_addr.extend(addr[i:j])
                    vals.append(_ascii_blob(list(map(float.__repr__, g))))
            del g
        for i in self.opaque:
            flags[i] |= F.F_OPAQUE
        targets = F.u64s(list(map(id, tgt)))
        # Discovery of objects gc.get_objects() does not list.
        self._discover(tgt, weak)
        del tgt, weak, chunk
        self.flush_tables()
        self.w.objects(addr, typ, size, rca, flags, ne, targets, lab)
        if vals_addr:
            self.w.values_blob(vals_addr, b"".join(vals))
        if dig_addr:
            self.w.digests(dig_addr, dig)

    def _sizeoff(self, o, sz):
        """getsizeof(o) - sz(o) for the type's C __sizeof__ sz: the GC
        header and pre-header, the same for every object of the type;
        -1 if it cannot be learnt (the group then uses getsizeof)."""
        try:
            a = _getsizeof(o)
            b = sz(o)
            if type(a) is int and type(b) is int and 0 <= a - b <= 64:
                return a - b
        except Exception as e:
            _host(e)
        return -1

    def _size_one(self, o):
        t = type(o)
        if not self.unsafe_size.get(id(t)):
            try:
                return _getsizeof(o)
            except Exception as e:
                _host(e)
                pass
        try:
            for c in _T_MRO(t):
                d = _tp_dict(c) if _is_type(c) else None
                if d is not None:
                    f = d.get("__sizeof__")
                    if _is_csizeof(f):
                        s = f(o)
                        break
            else:
                s = object.__sizeof__(o)
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

    def _discover(self, tgt, weak):
        untr, rl = self._untracked_rc(tgt)
        if untr:
            uniq = list(map(self.uniq_rc.__eq__, rl))
            self.pending_uniq.extend(compress(untr, uniq))
            multi = list(compress(untr, map(not_, uniq)))
            del uniq
            if multi:
                self._queue(multi)
        if weak:
            w = [o for o in weak if not _is_tracked(o)]
            if w:
                self._queue(w)
        if self.tracked_ids is not None:
            t = list(filter(_is_tracked, tgt))
            if t:
                d = dict(zip(map(id, t), t))
                new = d.keys() - self.tracked_ids - self.seen
                if new:
                    self.seen |= new
                    self.pending.extend(map(d.__getitem__, new))

    def _queue(self, objs):
        # Most are seen already (shared keys, strs, small ints): a set of
        # the ids first, a dict of objects only for the new ones.
        ids = list(map(id, objs))
        new = set(ids).difference(self.seen)
        if len(new) == len(ids):    # all distinct and new
            self.seen |= new
            self.pending.extend(objs)
        elif new:
            self.seen |= new
            sel = list(map(new.__contains__, ids))
            d = dict(zip(compress(ids, sel), compress(objs, sel)))
            self.pending.extend(d.values())
            del d

    # -- edges per kind -----------------------------------------------------------

    def _edges(self, k, g, base, ne, tgt, lab, weak):
        if k in LEAVES:
            ne.frombytes(bytes(4 * len(g)))
        elif k == K_GENERIC:
            self._generic(g, ne, tgt, lab)
        elif k == K_LIST or k == K_TUPLE:
            self._sequence(k, g, ne, tgt, lab)
        elif k == K_DICT:
            self._dicts(g, ne, tgt, lab)
        elif k == K_INST:
            rss = list(map(_get_referents, g))
            lens = list(map(len, rss))
            ne.extend(lens)
            tgt.extend(chain.from_iterable(rss))
            labels = list(map(self._tails.__getitem__, lens))
            if INLINE_VALUES:
                self._name_inline(g, rss, lens, labels)
            del rss
            lab.extend(chain.from_iterable(labels))
        else:
            h = SLOW[k]
            self.cur_weak = weak
            for idx, o in enumerate(g):
                try:
                    ts, ls, op = h(self, o)
                except Exception as e:
                    _host(e)
                    self.warn("%s while naming edges of a %s; its edges are unnamed"
                              % (_T_NAME(type(e)), type_name(type(o))))
                    ts = _get_referents(o)
                    ls = [0] * len(ts)
                    op = True
                ne.append(len(ts))
                tgt.extend(ts)
                lab.extend(ls)
                if op:
                    self.opaque.append(base + idx)
            self.cur_weak = None

    # -- attribute names of instances with inline values (3.11+) ---------------
    #
    # gc.get_referents(o) gives the values of o's attributes (in the order
    # of the class's shared keys, with missing ones skipped) and then the
    # class; o.__dict__ would make a dict (memory the program did not
    # ask for), so the agent does not touch it. Instead it learns, per class
    # and referent count, which position holds which attribute (candidate
    # names: the attribute names the class's methods use, and 3.13's
    # __static_attributes__), and then checks every instance: position p
    # is named .n only if getattr(o, n) is the object at p. getattr is
    # used only for classes whose attribute lookup is object's own (no
    # __getattribute__ or __getattr__ in the MRO) and for names no class
    # in the MRO defines (no descriptor, property or class attribute), so
    # it reads the inline values and runs nothing.

    def _name_inline(self, g, rss, lens, labels):
        keys = list(zip(map(id, map(type, g)), lens))
        distinct = list(dict.fromkeys(keys))
        if len(distinct) <= 8:
            groups = [(key, list(compress(range(len(keys)), map(key.__eq__, keys))))
                      for key in distinct]
        else:
            keyed = {}
            for i, key in enumerate(keys):
                ks = keyed.get(key)
                if ks is None:
                    keyed[key] = [i]
                else:
                    ks.append(i)
            groups = list(keyed.items())
        del keys, distinct
        setl = labels.__setitem__
        for key, idxs in groups:
            if key[1] < 2:
                continue
            lay = self.layouts.get(key)
            if lay is None:
                lay = self.layouts[key] = self._learn(key, g, rss, idxs)
            if not lay:
                continue
            G = list(map(g.__getitem__, idxs))
            RS = list(map(rss.__getitem__, idxs))
            oks = [list(map(is_, map(getattr, G, repeat(n), repeat(_MISSING)), map(itemgetter(p), RS)))
                   for p, n, l in lay[0]]
            del G, RS
            allok = list(map(all, zip(*oks)))
            for _ in map(setl, compress(idxs, allok), repeat(lay[1])):
                pass
            if not all(allok):
                for j in compress(range(len(idxs)), map(not_, allok)):
                    i = idxs[j]
                    row = list(labels[i])
                    for (p, n, l), ok in zip(lay[0], oks):
                        if ok[j]:
                            row[p] = l
                    labels[i] = tuple(row)

    def _learn(self, key, g, rss, idxs):
        """The layout of instances of one class with key[1] referents:
        ([(position, name, label)], labels), or () if none is known."""
        tid, n = key
        t = type(g[idxs[0]])
        names = self.inline_names.get(tid)
        if names is None:
            names = self.inline_names[tid] = _inline_candidates(t)
        if not names:
            return ()
        pos = {}
        for i in idxs[:4]:
            rs = rss[i]
            if rs[-1] is not t:
                return ()
            o = g[i]
            uniq = {}
            for p, x in enumerate(map(id, rs[:-1])):
                uniq[x] = -1 if x in uniq else p
            for nm in names:
                v = getattr(o, nm, _MISSING)
                if v is _MISSING:
                    continue
                p = uniq.get(id(v), -1)
                if p >= 0 and p not in pos:
                    pos[p] = nm
            v = o = None
        # Names whose value sat at several positions in the samples (None,
        # True, a shared object): any choice among those positions is
        # right for an instance where the check below passes, since the
        # edges then point to the same object.
        o = g[idxs[0]]
        rs = rss[idxs[0]]
        taken = set(pos.values())
        for nm in names:
            if nm in taken:
                continue
            v = getattr(o, nm, _MISSING)
            if v is _MISSING:
                continue
            for p in range(len(rs) - 1):
                if rs[p] is v and p not in pos:
                    pos[p] = nm
                    taken.add(nm)
                    break
        v = o = rs = None
        if not pos:
            return ()
        lay = [(p, nm, self.name("." + nm)) for p, nm in sorted(pos.items())]
        row = [0] * (n - 1) + [self.L_CLASS]
        for p, nm, l in lay:
            row[p] = l
        return (lay, tuple(row))

    def _generic(self, g, ne, tgt, lab):
        rss = list(map(_get_referents, g))
        lens = list(map(len, rss))
        ne.extend(lens)
        m0 = len(tgt)
        tgt.extend(chain.from_iterable(rss))
        lab.frombytes(bytes(4 * (len(tgt) - m0)))

    def _sequence(self, k, g, ne, tgt, lab):
        ids = None
        if k == K_TUPLE and self.closures:
            ids = list(map(id, g))
            if self.closures.keys().isdisjoint(ids):
                ids = None
        # Items in index order (gc.get_referents visits them backwards):
        # tuples as they are, lists copied by C code in one pass.
        rss = g if k == K_TUPLE else list(map(list.copy, g))
        lens = list(map(len, rss))
        ne.extend(lens)
        tgt.extend(chain.from_iterable(rss))
        del rss
        if lens and max(lens) > F.MAX_INDEX:
            lab.extend(chain.from_iterable(
                (F.INDEX | min(i, F.MAX_INDEX) for i in range(n)) for n in lens))
        elif ids is None:
            IDX = F.INDEX
            lab.extend(chain.from_iterable(map(range, repeat(IDX), map(add, lens, repeat(IDX)))))
        else:
            cg = self.closures.get
            for oid, n in zip(ids, lens):
                c = cg(oid)
                if c is not None and len(c) == n:
                    lab.extend(c)
                else:
                    lab.extend(range(F.INDEX, F.INDEX + n))

    def _dicts(self, g, ne, tgt, lab):
        # All dicts of the group flattened into [k0, v0, k1, v1, ...] by C
        # code in one call (no list per dict). Each dict's len is taken
        # right before its items are read, in the same call: no bytecode
        # runs in between, so no other thread can change a dict between
        # the two and the counts split the list exactly.
        lens = []
        m0 = len(tgt)
        try:
            tgt.extend(_chain_flat(_chain_flat(map(_second, zip(
                map(lens.append, map(len, g)), map(_dict_items, g))))))
            ok = len(lens) == len(g) and 2 * sum(lens) == len(tgt) - m0
        except RuntimeError:
            ok = False
        if not ok:
            del tgt[m0:]
            self._dicts_one_by_one(g, ne, tgt, lab)
            return
        ne.extend(map(add, lens, lens))
        self._dict_labels(tgt[m0::2], g, lens, lab)

    def _dicts_one_by_one(self, g, ne, tgt, lab):
        for d in g:
            try:
                it = list(_chain_flat(_dict_items(d)))
            except RuntimeError:
                # A dict changed size while another thread ran: its edges
                # come from gc.get_referents, unnamed.
                self.warn("dict 0x%x changed size during iteration; its edges come from "
                          "gc.get_referents" % id(d))
                r = _get_referents(d)
                ne.append(len(r))
                tgt.extend(r)
                lab.frombytes(bytes(4 * len(r)))
                continue
            ne.append(len(it))
            m0 = len(tgt)
            tgt.extend(it)
            del it
            self._dict_labels(tgt[m0::2], [d], [(len(tgt) - m0) // 2], lab)

    def _dict_labels(self, keys, g, npairs, lab):
        """Labels of the entries of the dicts g (npairs entries each) whose
        keys, in order, are keys."""
        isattr = None
        if self.attr_dicts:
            isattr = list(map(self.attr_dicts.__contains__, map(id, g)))
            if not any(isattr):
                isattr = None
        if isattr is None:
            kl = self.key_labels(keys, False, len(g) == 1)
        else:
            flags = list(chain.from_iterable(map(repeat, isattr, npairs)))
            kl = self.key_labels(keys, False) if not all(isattr) else [0] * len(keys)
            ai = list(compress(range(len(keys)), flags))
            al = self.key_labels(list(map(keys.__getitem__, ai)), True, len(g) == 1)
            for i, l in zip(ai, al):
                kl[i] = l
        del keys
        part = F.u32s((self.L_KEY,)) * (2 * len(kl))
        part[1::2] = F.u32s(kl)
        lab.extend(part)

    # -- roots ------------------------------------------------------------------

    def roots(self):
        """Writes the ROOTS section; returns executing frames that
        gc.get_objects() did not list, to be processed."""
        addr, kinds, names = [], [], []
        mods = sys.modules
        if type(mods) is dict:
            for name, m in list(_dict_items(mods)):
                if type(name) is str:
                    addr.append(id(m))
                    kinds.append(F.ROOT_MODULE)
                    names.append(self.name(name))
        import builtins
        for o, n in ((builtins, "builtins"), (sys, "sys"), (gc.garbage, "gc.garbage")):
            addr.append(id(o))
            kinds.append(F.ROOT_GLOBAL)
            names.append(self.name(n))
        tnames = {}
        th = mods.get("threading") if type(mods) is dict else None
        if type(th) is _MOD:
            active = _dict_get(_MOD_DICT(th), "_active")
            if type(active) is dict:
                for tid, t in list(_dict_items(active)):
                    nm = safe_attr(t, "_name")
                    nm = nm if type(nm) is str else "?"
                    tnames[tid] = nm
                    addr.append(id(t))
                    kinds.append(F.ROOT_THREAD)
                    names.append(self.name(nm))
        out = []
        seen = self.seen
        done = self.frames_done
        for tid, fr in list(_dict_items(sys._current_frames())):
            while fr is not None and is_agent_code(_FR_CODE(fr)):
                fr = _FR_BACK(fr)
            if fr is None:
                continue
            addr.append(id(fr))
            kinds.append(F.ROOT_STACK)
            names.append(self.name("thread " + tnames.get(tid, str(tid))))
            while fr is not None:
                i = id(fr)
                if i not in done and i not in seen:
                    seen.add(i)
                    out.append(fr)
                fr = _FR_BACK(fr)
        self.flush_tables()
        self.w.roots(addr, kinds, names)
        return out


# -- per-object handlers for the rarer kinds ------------------------------------
# Each returns (targets, labels, opaque).


def _match(rs, cands, add_unmatched):
    """Labels the referents rs by identity with cands [(obj, label)];
    with add_unmatched, candidates not found in rs become extra edges
    (references gc.get_referents does not report)."""
    want = {}
    for o, l in cands:
        i = id(o)
        w = want.get(i)
        if w is None:
            want[i] = [l]
        else:
            w.append(l)
    labels = []
    ts = list(rs)
    for r in ts:
        w = want.get(id(r))
        if w:
            labels.append(w.pop())
        else:
            labels.append(0)
    if add_unmatched:
        for o, l in cands:
            w = want.get(id(o))
            if w and o is not None:
                w.pop()
                ts.append(o)
                labels.append(l)
    return ts, labels


def _slots(cap, o, t, cands):
    for c in _T_MRO(t):
        if c is object or not _is_type(c):
            continue
        if not _T_FLAGS(c) & HEAPTYPE:
            continue
        d = _tp_dict(c)
        if d is None:
            continue
        for name, v in list(_dict_items(d)):
            if type(v) is _MEMBER and type(name) is str:
                try:
                    val = v.__get__(o, t)
                except AttributeError:
                    continue
                cands.append((val, cap.name("." + name)))


def _h_instx(cap, o):
    t = type(o)
    rs = _get_referents(o)
    cands = [(t, cap.L_CLASS)]
    _slots(cap, o, t, cands)
    fl = _T_FLAGS(t)
    if not fl & MANAGED_DICT:
        for i, r in enumerate(rs):
            if r is t:
                if i > 0 and type(rs[i - 1]) is dict and not any(rs[i - 1] is c[0] for c in cands):
                    cap.attr_dicts.add(id(rs[i - 1]))
                    cands.append((rs[i - 1], cap.L_DICT))
                break
    ts, ls = _match(rs, cands, False)
    if _has(_T_MRO(t), list):
        # The list's items come last, backwards (list_traverse).
        n = list.__len__(o)
        if n <= len(ls):
            for j in range(n):
                p = len(ls) - 1 - j if LIST_BACKWARDS else len(ls) - n + j
                if ls[p] == 0:
                    ls[p] = F.INDEX | min(j, F.MAX_INDEX)
    return ts, ls, False


def _h_dictlike(cap, o):
    t = type(o)
    rs = _get_referents(o)
    items = list(_dict_items(o))
    kl = cap.key_labels([k for k, v in items], False)
    cands = []
    for (k, v), l in zip(items, kl):
        cands.append((v, l))
        cands.append((k, cap.L_KEY))
    if _T_FLAGS(t) & HEAPTYPE:
        cands.append((t, cap.L_CLASS))
        _slots(cap, o, t, cands)
    ts, ls = _match(rs, cands, True)
    return ts, ls, False


def _h_module(cap, m):
    rs = _get_referents(m)
    cands = []
    d = _MOD_DICT(m)
    if type(d) is dict:
        cap.attr_dicts.add(id(d))
        cands.append((d, cap.L_DICT))
    t = type(m)
    if _T_FLAGS(t) & HEAPTYPE:
        cands.append((t, cap.L_CLASS))
    ts, ls = _match(rs, cands, False)
    return ts, ls, False


def _h_type(cap, t):
    rs = _get_referents(t)
    L = cap.L
    I = F.INTERNAL
    cands = []
    d = _tp_dict(t)
    if d is not None:
        cap.attr_dicts.add(id(d))
        cands.append((d, cap.L_DICT))
    cands.append((_T_MRO(t), L["__mro__"] | I))
    cands.append((_T_BASES(t), L["__bases__"] | I))
    cands.append((_T_BASE(t), L["__base__"] | I))
    mt = type(t)
    if mt is not type:
        cands.append((mt, cap.L_CLASS))
    ts, ls = _match(rs, cands, False)
    if _T_FLAGS(t) & HEAPTYPE:
        for get, n in ((_T_NAME, "__name__"), (_T_QUALNAME, "__qualname__")):
            v = get(t)
            if type(v) is str:
                ts.append(v)
                ls.append(L[n] | I)
    return ts, ls, False


def _h_func(cap, f):
    rs = _get_referents(f)
    L = cap.L
    cands = []
    for get, n in _FN_FIELDS:
        try:
            v = get(f)
        except Exception as e:
            _host(e)
            continue
        if v is not None:
            l = L.get(n)
            if l is None:
                l = L[n] = cap.name(n)
            if n == "__code__":
                l |= F.INTERNAL
            cands.append((v, l))
    cl = _FN_CLOSURE(f)
    if type(cl) is tuple:
        names = _CO_FREEVARS(_FN_CODE(f))
        if type(names) is tuple and len(names) == len(cl):
            cap.closures[id(cl)] = tuple(
                cap.name("<cell> " + n) if type(n) is str else 0 for n in names)
    ts, ls = _match(rs, cands, False)
    return ts, ls, False


def _h_frame(cap, fr):
    rs = _get_referents(fr)
    L = cap.L
    I = F.INTERNAL
    code = _FR_CODE(fr)
    # Executing frames: on 3.11+ their traverse shows no code; before,
    # the stack walk at the start of the capture listed them.
    executing = id(fr) in cap.exec_frames or not any(r is code for r in rs)
    glob = _FR_GLOBALS(fr)
    back = _FR_BACK(fr)
    if back is not None:
        # Executing frames' objects are not gc-tracked in 3.11+; the stack
        # walk queues them, so they must be deduplicated, not taken as
        # uniquely referenced.
        cap.cur_weak.append(back)
    cands = [(back, L["f_back"]), (code, L["f_code"] | I),
             (glob, L["f_globals"]), (_FR_BUILTINS(fr), L["f_builtins"] | I)]
    if executing and _optimized(code):
        loc = _FR_LOCALS(fr)
        if type(loc) is dict and loc is not glob:
            cands.append((loc, L["f_locals"] | I))
            items = list(_dict_items(loc))
        elif _FLP_ITEMS is not None and type(loc) is _FLP:
            items = list(_FLP_ITEMS(loc))   # 3.13+: a FrameLocalsProxy, no dict
        else:
            items = ()
        loc = None
        for k, v in items:
            if type(k) is str:
                cands.append((v, cap.name("<local> " + k)))
    ts, ls = _match(rs, cands, executing)
    return ts, ls, False


def _h_cell(cap, c):
    rs = _get_referents(c)
    return rs, [cap.L["cell_contents"]] * len(rs), False


def _h_method(cap, m):
    rs = _get_referents(m)
    L = cap.L
    ts, ls = _match(rs, [(_MT_FUNC(m), L["__func__"]), (_MT_SELF(m), L["__self__"])], False)
    return ts, ls, False


def _h_mwrapper(cap, m):
    rs = _get_referents(m)
    ts, ls = _match(rs, [(_MW_SELF(m), cap.L["__self__"])], False)
    return ts, ls, False


def _h_bmethod(cap, m):
    rs = _get_referents(m)
    L = cap.L
    ts, ls = _match(rs, [(_BT_SELF(m), L["__self__"]), (_BT_MODULE(m), L["__module__"])], False)
    return ts, ls, False


def _h_weakref(cap, r):
    t = type(r)
    rs = _get_referents(r)
    cands = [(_WREF_CB(r), cap.L["__callback__"])]
    if t is not _WREF:
        if _T_FLAGS(t) & HEAPTYPE:
            cands.append((t, cap.L_CLASS))
        _slots(cap, r, t, cands)
    ts, ls = _match(rs, cands, False)
    o = _WREF_CALL(r)
    if o is not None:
        ts.append(o)
        ls.append(cap.L["<referent>"] | F.WEAK)
        cap.cur_weak.append(o)
    return ts, ls, False


def _h_ndarray(cap, a):
    rs = list(_get_referents(a))
    ls = [0] * len(rs)
    nd = None
    for c in _T_MRO(type(a)):
        if id(c) == cap.ndarray_id:
            nd = c
    d = _tp_dict(nd)
    b = d["base"].__get__(a, nd)
    if b is not None:
        rs.append(b)
        ls.append(cap.L["base"])
    op = False
    try:
        dt = d["dtype"].__get__(a, nd)
        found, ho = _mro_lookup(type(dt), "hasobject")
        if found and type(ho) is _types.GetSetDescriptorType and ho.__get__(dt, type(dt)):
            op = True
    except Exception as e:
        _host(e)
        op = True
    return rs, ls, op


SLOW = {K_NDARRAY: _h_ndarray, K_INSTX: _h_instx, K_DICTLIKE: _h_dictlike,
        K_MODULE: _h_module, K_TYPE: _h_type, K_FUNC: _h_func, K_FRAME: _h_frame,
        K_CELL: _h_cell, K_METHOD: _h_method, K_BMETHOD: _h_bmethod,
        K_WEAKREF: _h_weakref, K_MWRAPPER: _h_mwrapper}


class _Tails(dict):
    """n -> labels of an instance's n referents: unnamed, then __class__."""

    def __init__(self, lclass):
        dict.__init__(self)
        self.lclass = lclass

    def __missing__(self, n):
        t = (0,) * (n - 1) + (self.lclass,) if n else ()
        if n < 512:
            self[n] = t
        return t


_MISSING = object()


def _inline_candidates(t):
    """Attribute names instances of t may hold inline, as copies, if t's
    attribute lookup cannot run the program's code; else ()."""
    try:
        if _mro_lookup(t, "__getattribute__")[1] is not object.__getattribute__:
            return ()
        if _mro_lookup(t, "__getattr__")[0]:
            return ()
        seen = {}
        for c in _T_MRO(t):
            if c is object or not _is_type(c):
                continue
            d = _tp_dict(c)
            if d is None:
                continue
            st = _dict_get(d, "__static_attributes__")
            if type(st) is tuple:
                for x in st:
                    if type(x) is str:
                        seen[x] = True
            for v in list(d.values()):
                if type(v) is not _FT:
                    continue
                code = _FN_CODE(v)
                for x in _CO_NAMES(code):
                    if type(x) is str:
                        seen[x] = True
                for cc in _CO_CONSTS(code):
                    if type(cc) is _types.CodeType:
                        for x in _CO_NAMES(cc):
                            if type(x) is str:
                                seen[x] = True
        out = []
        for x in seen:
            if x.startswith("__") or _mro_lookup(t, x)[0]:
                continue
            out.append(_copy_str(x))
        return tuple(out[:256])
    except Exception as e:
        _host(e)
        return ()


def _lenpfx(n):
    return "".join(map(chr, (n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >> 24) & 255)))


# n -> the u32 little-endian encoding of n as 4 latin-1 characters; built
# once, never changed during a capture.
LENPFX_MAX = 4096
_LENPFX = tuple(map(_lenpfx, range(LENPFX_MAX)))


def _ascii_blob(strs):
    """count x (u32 length, bytes) for a list of ASCII strs, made with one
    join and one encode (latin-1: the length characters may exceed 127)."""
    if strs and max(map(len, strs)) >= LENPFX_MAX:
        return _blob(list(map(str.encode, strs)))
    return "".join(chain.from_iterable(zip(map(_LENPFX.__getitem__, map(len, strs)), strs))).encode("latin-1")


def _blob(bs):
    """count x (u32 length, bytes) for a list of bytes."""
    return b"".join(chain.from_iterable(zip(map(F._pack_u32, map(len, bs)), bs)))


def _copy_str(s):
    return "".join(("", s))


def _bisect_right(a, x, lo, hi):
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


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


def open_temp(path, state):
    """Opens the temporary file next to path, recording it in state first
    (a signal handler may raise at any point, and the caller's cleanup
    must find the file)."""
    d = os.path.dirname(path) or "."
    base = os.path.basename(path)
    for n in range(100):
        tmp = os.path.join(d, ".%s.%d.%d.tmp" % (base, os.getpid(), n))
        state["tmp"] = tmp
        try:
            state["fd"] = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                                  0o644)
        except FileExistsError:
            del state["tmp"]   # not ours
            continue
        f = state["f"] = os.fdopen(state["fd"], "wb", buffering=1 << 20)
        del state["fd"]
        return f
    raise FileExistsError("no free temporary name for " + path)


def capture(path, values, max_value_len, collect, state):
    """Takes the snapshot into a temporary file next to path (recorded in
    state["tmp"], its file object in state["f"]). Returns the Capture (with
    its Writer and warnings) before META, WARNINGS and END are written;
    raises on I/O errors. Everything the agent keeps is made after
    gc.get_objects(), so none of it is listed; state is filled after too."""
    was_enabled = gc.isenabled()
    if collect:
        gc.collect()
    gc.disable()
    try:
        materialize_frames()
        objs = gc.get_objects()
        warnings = []
        f = open_temp(path, state)
        w = F.Writer(f, values)
        cap = Capture(w, values, max_value_len, warnings)
        cap.calibrate()
        cap.exec_frames = executing_frame_ids()
        try:
            frozen = gc.get_freeze_count()
        except AttributeError:
            frozen = 0
        if frozen:
            cap.tracked_ids = set(map(id, objs))
            cap.warn("%d objects are frozen (gc.freeze()); they are found from the roots" % frozen)
        failure = None
        try:
            cap.run_batch(objs)
        except OSError:
            raise
        except Exception as e:  # MemoryError, RecursionError, a bug: keep what is written
            _host(e)
            if from_host(e):
                raise
            failure = _T_NAME(type(e))
        del objs
        cap.defer = False
        try:
            if failure is None:
                frames = cap.roots()
                cap.run_batch(frames)
                del frames
                while cap.deferred or cap.pending or cap.pending_uniq:
                    b = cap.deferred
                    cap.deferred = []
                    cap.run_batch(b)
                    del b
                    b = cap.pending
                    cap.pending = []
                    cap.run_batch(b)
                    del b
                    b = cap.pending_uniq
                    cap.pending_uniq = []
                    cap.run_batch(b, True)
                    del b
        except OSError:
            raise
        except Exception as e:
            _host(e)
            if from_host(e):
                raise
            failure = _T_NAME(type(e))
        if failure:
            cap.deferred = cap.pending = cap.pending_uniq = None
            cap.warn("capture stopped early: %s; the snapshot is incomplete" % failure)
        return cap
    finally:
        if was_enabled:
            gc.enable()
