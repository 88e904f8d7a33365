"""The heap walker of the heapscope agent: capture() and its Capture.

This module holds Capture (a snapshot's state, the string and type tables,
the chunk pipeline: grouping, reference counts, sizes, discovery of
unlisted objects, roots) and capture(), which drives it. The rest of the
walker is in
  _introspect  safe C-level reading of objects, types, code and frames;
               recognizing the agent's own code and the program's exceptions
  _native      what is read of CPython's C structures with ctypes: frames'
               fast locals (3.9-3.12), code objects', descriptors' and
               classes' fields gc does not report, the interpreter state
  _own         the agent's own objects, which the snapshot leaves out
  _handlers    object kinds, and the per-object edge handlers of the rarer kinds
  _edges       Edges, mixed into Capture: naming the edges of a group of one
               kind (dict keys, sequences, instances' inline attributes)

Rules the walker lives by (see agent/doc.go and docs/pysnap-format.md):

* It never runs code of the host's classes: no repr/str/eq/hash/len/iter or
  getattr on user objects. It reads objects through C-level functions on
  exact builtin types only: gc.get_referents, type(), id(), sys.getsizeof
  (only when the type's __sizeof__ is implemented in C), dict.items on
  exact dicts, and the C descriptors of builtin types called directly
  (type.__dict__['__mro__'].__get__(t) and the like). Types are compared
  and hashed by id (a metaclass may define __eq__ and __hash__). No name
  is looked up in a dict of the program's with the dict's own lookup (a
  key whose hash collides would have its __eq__ called): names are
  looked up among a dict's exact-str entries (_introspect._str_dict,
  mro_view). sys.getsizeof and the one getattr it does (naming inline
  attributes, see _edges) are used only for classes whose dicts have
  exact-str keys only, and getattr only for names and classes for which
  it cannot reach Python code. A type that is not ready is read no
  further than its flags.
* It leaves nothing behind: no frame's f_locals is read on 3.12 and
  earlier (that makes or refreshes a dict of the frame's locals, which
  keeps them alive and changes the program's locals() dict); locals are
  read from the frame's slots (_native). After snapshot() returns, the
  agent holds no reference to an object of the program's.
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
  the snapshot; agent frames that exist before are filtered by file name
  (is_agent_code: any module of this package's directory).
"""

import builtins
import gc
import io
import os
import sys
from array import array
from itertools import chain, compress, filterfalse, repeat
from operator import not_, sub, is_, or_

from . import _format as F
from ._introspect import (
    _T_MRO, _T_FLAGS, _FR_BACK, _FR_CODE, _MOD, _MOD_DICT, _WREF, _FT, _FR,
    _CELL, _MT, _BT, _MW, _MEMBER, _CODE, DESCRIPTORS, _is_tracked, _getrefcount, _getsizeof, _dict_items,
    PY312, PY313, HASH_SEED_FIXED, INLINE_VALUES, HAVE_GC, HEAPTYPE, MANAGED_DICT,
    is_agent_code, type_name, _has, _is_csizeof, _str_get, mro_view,
    CSizer, safe_attr, _has_dict_slot, _copy_str, executing_frame_ids, current_frames,
    materialize_frames,
    _host, from_host)
from ._handlers import (
    K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT, K_NDARRAY, K_GENERIC, K_LIST,
    K_TUPLE, K_DICT, K_INST, K_INSTX, K_DICTLIKE, K_MODULE, K_TYPE, K_FUNC,
    K_FRAME, K_CELL, K_METHOD, K_BMETHOD, K_WEAKREF, K_MWRAPPER, K_CODE, K_DESCR,
    UNTRACKABLE, SIZER_KINDS)
from ._edges import Edges, _Tails, _inline_candidates
from ._own import own_objects
from . import _native
from . import _sites
from . import _untraced
from . import _fork

# Kinds, types and builtin bases whose objects the snapshot shows whole
# (F_WHOLE, see Capture._whole).
WHOLE_KINDS = (K_LIST, K_TUPLE, K_DICT, K_CELL, K_FUNC, K_METHOD, K_DICTLIKE)
WHOLE_TYPES = (set, frozenset, property, staticmethod, classmethod, type(sys.implementation))
WHOLE_BASES = (object, dict, list, tuple, set, frozenset)
_OR_WHOLE = bytes(b | F.F_WHOLE for b in range(256))
_WHOLE_OF = (0, F.F_WHOLE)
_TO_WHOLE = bytes([0, F.F_WHOLE]) + bytes(254)
_BOOL_ID = id(bool)
_MEMORYVIEW_ID = id(memoryview)

_TD = type.__dict__
_BASICSIZE = _TD["__basicsize__"].__get__
_DICTOFFSET = _TD["__dictoffset__"].__get__
_WEAKOFFSET = _TD["__weakrefoffset__"].__get__
_PTR = _TD["__itemsize__"].__get__(tuple)   # a pointer's size


def _plain_layout(t, view):
    """Whether the instances of heap type t have no C fields besides
    those the snapshot shows: its size is its C base's (object, dict,
    list, tuple, set or frozenset) plus a pointer for each slot of its
    classes (edges), its dict and its weak reference list. Not so for a
    type an extension makes with PyType_FromSpec (a lock), which is a
    heap type too, nor a subclass of another C type (a date)."""
    own = {id(c): d for c, d in view[2]}
    slots = 0
    base = None
    for c in _T_MRO(t):
        if not _T_FLAGS(c) & HEAPTYPE:
            base = c
            break
        d = own.get(id(c))
        if d is None:
            return False
        slots += sum(1 for v in d.values() if type(v) is _MEMBER)
    if base is None or not _has(WHOLE_BASES, base):
        return False
    # A dict or weak reference list pointer the base has already (a
    # set's weak list) is the base's.
    own_dict = _DICTOFFSET(t) > 0 and not _DICTOFFSET(base) > 0
    own_weak = _WEAKOFFSET(t) > 0 and not _WEAKOFFSET(base) > 0
    return _BASICSIZE(t) == _BASICSIZE(base) + _PTR * (slots + own_dict + own_weak)


CHUNK = 1 << 14
MAX_NAMES = 1 << 18        # edge names deduplicated; later new names are written as they come
MAX_WARNINGS = 200
IMMORTAL_MIN = (1 << 30) - 64
SKEY_SHIFT = 22
SKEY_MULTI = (1 << SKEY_SHIFT) - 1   # sort key type part shared by several types


class Capture(Edges):
    """One snapshot's state. Created after gc.get_objects()."""

    def __init__(self, w, values, max_value_len, warnings):
        self.w = w
        self.values = values
        # Digests (hashes of str and bytes, for finding duplicates) only
        # where values are written or the hash key is secret.
        self.digests = values or not HASH_SEED_FIXED
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
        self.whole = set()       # ids of the types whose objects' state the snapshot shows whole
        self.unsafe_size = {}    # id(type) -> CSizer, for types whose sizes getsizeof must not give
        self.np_hasobject = {}   # id(numpy dtype class) -> its hasobject getter (False: none)
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
        self.nd_labels = {}      # id(numpy array) -> its dtype and shape, from the edge handler
        self.own = set()         # ids of the agent's own objects, left out (_own)
        self.own_outside = []    # those that may be referred to: written as left out
        self.own_types = set()   # ids of the types of the agent's own objects
        self.static_types = []   # ids of the static types registered (rooted: never freed)
        self.agent_refs = {}     # id -> references the agent's objects hold to it
        self.agent_ref_types = set()  # ids of the types of those objects
        self.interp = None       # (address, [(word, offset)]) of the interpreter state
        self.slot_cache = {}     # id(type) -> [(slot getter, label)] (_handlers.slot_members)
        self.slot_plans = {}     # id(type) -> the layout of an all-slots instance (_handlers.slot_plan)
        self.slot_layouts = {}   # (id(type), referent count) -> the slots set (Edges._slot_layout)
        self.dict_offsets = {}   # id(type) -> where its instances keep their __dict__ (or None)
        self.layouts = {}        # (id(type), referent count) -> inline layout
        self.inline_names = {}   # id(type) -> candidate attribute names (copies)
        self.sites = _sites.Sites.make(self)   # allocation sites, or None
        self.L = {}
        for s in ("<key>", "__dict__", "__class__", "__mro__", "__bases__", "__base__",
                  "__closure__", "__globals__", "f_back", "f_code", "f_globals",
                  "f_builtins", "f_locals", "f_trace", "__self__", "__func__",
                  "cell_contents", "base", "__callback__", "__name__", "__qualname__",
                  "__module__", "<referent>", "<value>", "<subclasses>"):
            self.L[s] = self.name(s)
        internal = F.INTERNAL
        self.L_KEY = self.L["<key>"]
        self.L_VALUE = self.L["<value>"]   # a dict value whose key is not written (values=False)
        self.L_CLASS = self.L["__class__"] | internal
        self.L_DICT = self.L["__dict__"]
        self._tails = _Tails(self.L_CLASS)
        np = _str_get(sys.modules, "numpy")[1] if type(sys.modules) is dict else None
        if type(np) is _MOD:
            nd = _str_get(_MOD_DICT(np), "ndarray")[1]
            if type(nd) is type:
                self.ndarray_id = id(nd)
            nd = None
        np = None

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
        if not _T_FLAGS(t) & HEAPTYPE:
            self.static_types.append(tid)
        view = None
        try:
            view = mro_view(t)
        except Exception as e:
            _host(e)
        self.types_name.append(self.name(type_name(t, view)))
        try:
            k = self._kind(t, view) if view is not None else K_GENERIC
        except Exception as e:  # a broken MRO, say
            _host(e)
            self.warn("type %s: %s; its objects get unnamed edges" % (type_name(t), type_name(type(e))))
            k = K_GENERIC
        if view is None:
            # Not ready (see READY), or an MRO that is not one: sizes
            # without any lookup on it (getsizeof would ready the type).
            self.unsafe_size[tid] = CSizer(t)
            self.warn("type %s is not ready or has no usable MRO; its objects get unnamed edges "
                      "and the size of object.__sizeof__" % type_name(t))
        elif not view[1]:
            self.unsafe_size[tid] = CSizer(t)
            self.warn("type %s has a class whose dict has keys that are not str; its sizes come "
                      "from the nearest C __sizeof__ and its inline attributes are unnamed" % type_name(t))
        else:
            sz = view[0].get("__sizeof__")
            if not _is_csizeof(sz):
                self.unsafe_size[tid] = CSizer(t)
                self.warn("type %s defines __sizeof__ in Python; its sizes are object.__sizeof__ "
                          "of the nearest builtin base plus the GC header" % type_name(t))
            elif k in SIZER_KINDS:
                self.sizer[tid] = sz
        if k == K_INST and INLINE_VALUES:
            self.inline_names[tid] = _inline_candidates(t, view)
        if self._whole(t, k, view):
            self.whole.add(tid)
        view = sz = None
        ti = self.tindex[tid]
        self.skey[tid] = (k << 22) | (ti if ti < (1 << 22) else (1 << 22) - 1)
        if ti < SKEY_MULTI:
            self.skey_tid[self.skey[tid]] = tid
        self.tkind[tid] = k
        return k

    def _kind(self, t, view):
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
        if t is _CODE:
            return K_CODE
        if id(t) in DESCRIPTORS:
            return K_DESCR
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
            own = {id(c): d for c, d in view[2]}   # each class's exact-str entries
            for c in mro:
                if c is object:
                    continue
                if not _T_FLAGS(c) & HEAPTYPE:
                    return K_INSTX
                d = own.get(id(c))
                if d is None:
                    return K_INSTX
                if "__slots__" in d:
                    for v in d.values():
                        if type(v) is _MEMBER:
                            return K_INSTX
            if flags & MANAGED_DICT or not _has_dict_slot(t, view):
                return K_INST
            return K_INSTX
        return K_GENERIC

    def _whole(self, t, k, view):
        """Whether the snapshot shows all of the state of t's objects
        (F_WHOLE): their references and, for str, bytes, int, float and
        bool, their values; not so for classes, modules, code, frames
        and the objects of C types with fields of their own (a datetime,
        a lock, a numpy array), which equal-by-value analysis compares
        by identity. An int too big for a value is left out per object
        (see _emit)."""
        if k == K_STR or k == K_BYTES:
            return self.digests
        if k == K_INT or k == K_FLOAT:
            return self.values
        if k == K_LEAF:
            return t is bool and self.values
        if k == K_WEAKREF:
            return t is _WREF
        if k == K_GENERIC:
            return _has(WHOLE_TYPES, t)
        if k == K_INST or k == K_INSTX:
            return view is not None and _plain_layout(t, view)
        return k in WHOLE_KINDS


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
        # Exclusions: deferred dicts/tuples (phase 1), agent frames and
        # the agent's own objects (looked for in groups of their types).
        parts = []
        bounds = []
        pos = 0
        own = self.own
        while groups:
            sk_, g = groups.pop(0)
            k = sk_ >> SKEY_SHIFT
            if own and ((sk_ & SKEY_MULTI) == SKEY_MULTI or self.skey_tid[sk_] in self.own_types) \
                    and not own.isdisjoint(map(id, g)):
                g = list(compress(g, map(not_, map(own.__contains__, map(id, g)))))
                if not g:
                    continue
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
        if self.agent_refs and not rc1:
            self._less_agent_refs(bounds, addr, rca)
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
                part = bytes(m)
            else:
                part = bytes(map(_is_tracked, g))
            if single:
                if tid in self.whole:
                    if k == K_INT:
                        # An int too big for a value is not whole.
                        part = bytes(map(or_, part, bytes(map((63).__ge__, map(int.bit_length, g))).translate(_TO_WHOLE)))
                    else:
                        part = part.translate(_OR_WHOLE)
            elif not self.whole.isdisjoint(gtids):
                part = bytes(map(or_, part, map(_WHOLE_OF.__getitem__, map(self.whole.__contains__, gtids))))
            flags.extend(part)
            if k == K_STR and not rc1 and _native.STR_STATE is not None:
                # Interned strs with references from C (at least 3: one
                # more than a str held by two objects could have).
                many = list(compress(range(m), map((3).__le__, rca[i:j])))
                if many:
                    for x in compress(many, _native.interned(list(map(g.__getitem__, many)))):
                        flags[i + x] |= F.F_INTERNED
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
                          % (type_name(type(e)), len(g), k))
                want = i
                del ne[want:]
                m = sum(ne)
                del tgt[m:]
                del lab[m:]
                self._generic(g, ne, tgt, lab)
            if k == K_STR or k == K_BYTES:
                if self.digests:
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
            elif self.values and k == K_LEAF and (sk_ & SKEY_MULTI) != SKEY_MULTI and self.skey_tid[sk_] == _BOOL_ID:
                vals_addr.extend(addr[i:j])
                vals.append(_ascii_blob(list(map(bool.__repr__, g))))
            elif self.values and k == K_NDARRAY:
                labels = list(map(self.nd_labels.pop, map(id, g), repeat(None)))
                if any(labels):
                    vals_addr.extend(compress(addr[i:j], labels))
                    vals.append(_ascii_blob(list(filter(None, labels))))
            elif self.values and k == K_GENERIC and (sk_ & SKEY_MULTI) != SKEY_MULTI and self.skey_tid[sk_] == _MEMORYVIEW_ID:
                vals_addr.extend(addr[i:j])
                labels = list(map(_native.memoryview_label, g))
                vals.append(_ascii_blob(labels) if all(map(str.isascii, labels))
                            else _blob([x.encode("utf-8", "backslashreplace") for x in labels]))
            del g
        for i in self.opaque:
            flags[i] |= F.F_OPAQUE
        targets = F.u64s(list(map(id, tgt)))
        sites = self.sites.collect(chunk, addr) if self.sites is not None else None
        # Discovery of objects gc.get_objects() does not list.
        self._discover(tgt, weak)
        del tgt, weak, chunk
        self.flush_tables()
        self.w.objects(addr, typ, size, rca, flags, ne, targets, lab)
        if vals_addr:
            self.w.values_blob(vals_addr, b"".join(vals))
        if dig_addr:
            self.w.digests(dig_addr, dig)
        if sites is not None:
            self.sites.write(self.w, sites)

    def _less_agent_refs(self, bounds, addr, rca):
        """Takes the references the agent's own objects hold out of the
        reference counts of the objects of the chunk they refer to (the
        snapshot leaves those objects out). Only groups of the types
        such objects have are looked at."""
        ar = self.agent_refs
        types = self.agent_ref_types
        for sk_, i, j in bounds:
            if (sk_ & SKEY_MULTI) != SKEY_MULTI and self.skey_tid[sk_] not in types:
                continue
            a = addr[i:j]
            if ar.keys().isdisjoint(a):
                continue
            for x in compress(range(i, j), map(ar.__contains__, a)):
                rca[x] = max(rca[x] - ar[addr[x]], 0)

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
        cs = self.unsafe_size.get(id(t))
        if cs is None:
            try:
                return _getsizeof(o)
            except Exception as e:
                _host(e)
            cs = self.unsafe_size[id(t)] = CSizer(t)
        return cs(o)

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

    # -- the interpreter's own references ---------------------------------------

    def read_interp(self):
        """Reads the words of the interpreter state (before the walk: its
        references are matched with the objects as they are written)."""
        try:
            got = _native.interp_words()
        except Exception as e:
            _host(e)
            got = None
        if got is not None:
            self.interp = got

    def write_interp(self):
        """Writes the interpreter state as a synthetic object, rooted as
        "interpreter", whose edges are its words that may be references
        (the reader keeps those that are addresses of objects), and the
        ids of the agent's objects that may be referred to, as left out.
        After the walk."""
        if self.own_outside:
            self.w.omitted(F.u64s(self.own_outside))
        if self.static_types:
            # Statically allocated: the interpreter never frees them.
            n = len(self.static_types)
            name = self.name("static type")
            self.flush_tables()
            self.w.roots(self.static_types, [F.ROOT_VM] * n, [name] * n)
        if self.interp is None:
            return
        base, words = self.interp
        fields = _native.INTERP[2]
        tg = F.u64s()
        lab = F.u32s()
        names = {}
        for w, off in words:
            tg.append(w)
            n = fields.get(off)
            if n is None:
                lab.append(0)
                continue
            l = names.get(n)
            if l is None:
                l = names[n] = self.name(n)
            lab.append(l)
        ti = self.ntypes
        self.ntypes += 1
        self.types_addr.append(0)
        self.types_name.append(self.name("(interpreter state)"))
        root = self.name("interpreter")
        self.flush_tables()
        self.w.objects(F.u64s((base,)), F.u32s((ti,)), F.u64s((0,)), F.u64s((0,)), bytes((F.F_SYNTHETIC,)),
                       F.u32s((len(tg),)), tg, lab)
        self.w.roots([base], [F.ROOT_VM], [root])

    # -- roots ------------------------------------------------------------------

    def roots(self):
        """Writes the ROOTS section; returns executing frames that
        gc.get_objects() did not list, to be processed."""
        addr, kinds, names = [], [], []
        mods = sys.modules
        if type(mods) is not dict:
            mods = {}
        for name, m in list(_dict_items(mods)):
            if type(name) is str and id(m) not in self.own:
                addr.append(id(m))
                kinds.append(F.ROOT_MODULE)
                names.append(self.name(name))
        for o, n in ((builtins, "builtins"), (sys, "sys"), (gc.garbage, "gc.garbage")):
            addr.append(id(o))
            kinds.append(F.ROOT_GLOBAL)
            names.append(self.name(n))
        # Threads are named by their name only with values: the program
        # chooses it, and it may hold anything.
        tnames = {}
        th = _str_get(mods, "threading")[1]
        if type(th) is _MOD:
            active = _str_get(_MOD_DICT(th), "_active")[1]
            if type(active) is dict:
                for tid, t in list(_dict_items(active)):
                    if type(tid) is not int:
                        continue
                    nm = safe_attr(t, "_name") if self.values else None
                    nm = nm if type(nm) is str else str(tid)
                    tnames[tid] = nm
                    addr.append(id(t))
                    kinds.append(F.ROOT_THREAD)
                    names.append(self.name(nm))
        th = active = t = None
        out = []
        seen = self.seen
        done = self.frames_done
        for tid, fr in list(_dict_items(current_frames())):
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



_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_open = os.open
_getpid = os.getpid
_io_open = io.open


def open_temp_fd(path, state):
    """Creates the temporary file next to path, readable by its owner
    only (created 0600, as the final file stays), recording its name in
    state["tmp"] first and its descriptor in state["fd"] (a signal
    handler may raise at any point, and the caller's cleanup must find
    the file); returns the descriptor. O_EXCL: a name someone else made
    is never opened, and a symbolic link there is not followed."""
    d, _, base = path.rpartition("/")
    if not d and path.startswith("/"):
        d = "/"
    prefix = (d + "/" if d and d != "/" else d) + "." + base + "." + str(_getpid()) + "."
    for n in range(100):
        tmp = prefix + str(n) + ".tmp"
        state["tmp"] = tmp
        try:
            state["fd"] = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
        except FileExistsError:
            del state["tmp"]   # not ours
            continue
        return state["fd"]
    raise FileExistsError("no free temporary name for " + path)


def open_temp(path, state):
    """Opens the temporary file next to path (see open_temp_fd) as a
    buffered file, recorded in state["f"]."""
    fd = open_temp_fd(path, state)
    f = state["f"] = _io_open(fd, "wb", buffering=1 << 20)
    del state["fd"]
    return f


def capture(path, values, max_value_len, collect, state, opener=open_temp):
    """Takes the snapshot into a temporary file next to path, opened with
    opener(path, state) (open_temp records the file in state["tmp"], its
    file object in state["f"]). Returns the Capture (with its Writer and
    warnings) before META, WARNINGS and END are written; raises on I/O
    errors. Everything the agent keeps is made after gc.get_objects(), so
    none of it is listed; state is filled after too."""
    was_enabled = gc.isenabled()
    if collect:
        gc.collect()
    gc.disable()
    # Under tracemalloc, what the walk allocates is not traced (see
    # _untraced); the window opens before gc.get_objects(), whose list is
    # freed inside it, and closes when the walk is done.
    untraced = _sites.tracing()
    why_traced = _untraced.pause(_fork.IN_CHILD) if untraced else None
    cap = None
    try:
        materialize_frames()
        objs = gc.get_objects()
        warnings = []
        f = opener(path, state)
        w = F.Writer(f, values)
        cap = Capture(w, values, max_value_len, warnings)
        if why_traced is not None:
            cap.warn("allocation sites: %s; the agent's own allocations were traced too, "
                     "which made the capture slower" % why_traced)
        cap.calibrate()
        cap.read_interp()
        cap.exec_frames = executing_frame_ids()
        if not PY313 and not _native.AVAILABLE:
            cap.warn("the fast locals of frames cannot be read here (no ctypes, or a frame layout the "
                     "agent does not know): locals are unnamed, and on 3.11 and 3.12 those of running "
                     "frames are missing (their frames are flagged opaque)")
        try:
            frozen = gc.get_freeze_count()
        except AttributeError:
            frozen = 0
        if frozen:
            cap.tracked_ids = set(map(id, objs))
            cap.warn("%d objects are frozen (gc.freeze()); they are found from the roots" % frozen)
        own = own_objects(cap.tracked_ids, objs)
        cap.own, cap.own_outside, cap.own_types = own.ids, own.outside, own.own_types
        cap.agent_refs, cap.agent_ref_types = own.refs, own.types
        # Found as a referent, an object of the agent's is taken for one
        # already queued.
        cap.seen.update(own.ids)
        del own
        failure = None
        try:
            cap.run_batch(objs)
        except OSError:
            raise
        except Exception as e:  # MemoryError, RecursionError, a bug: keep what is written
            _host(e)
            if from_host(e):
                raise
            failure = type_name(type(e))
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
                cap.write_interp()
        except OSError:
            raise
        except Exception as e:
            _host(e)
            if from_host(e):
                raise
            failure = type_name(type(e))
        if failure:
            cap.deferred = cap.pending = cap.pending_uniq = None
            cap.warn("capture stopped early: %s; the snapshot is incomplete" % failure)
        return cap
    finally:
        if untraced:
            why = _untraced.resume()
            if why is not None and cap is not None:
                cap.warn("allocation sites: " + why)
        if was_enabled:
            gc.enable()
