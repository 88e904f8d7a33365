"""The kinds of the types a capture meets: Kinds, mixed into Capture.

register(t) gives each type, the first time one of its objects is met, a
type index (the file's TYPES table, flushed with the strings), a kind
(_handlers' K_*: which edge handler names its objects' edges, and how
their sizes are taken) and a sort key, kind << SKEY_SHIFT | type index,
by which a chunk is grouped (_chunks); types past SKEY_MULTI share one
key per kind. It decides too which types' sizes cannot come from
sys.getsizeof (a class not ready, with a non-str key in a class dict, or
with a __sizeof__ in Python: CSizer instead, with a warning) and which
have their objects' whole state in the snapshot (F_WHOLE), and which are
deques (their objects' maxlens go in LIMITS, see _chunks). It reads a
type through C-level accessors and its classes' exact-str entries only
(mro_view), and runs none of the program's code.
"""

import sys

from ._introspect import (
    _T_MRO, _T_FLAGS, _MOD, _WREF, _FT, _FR, _CELL, _MT, _BT, _MW, _MEMBER, _CODE, DESCRIPTORS,
    INLINE_VALUES, HAVE_GC, HEAPTYPE, MANAGED_DICT,
    type_name, _has, _is_csizeof, mro_view, CSizer, _has_dict_slot, _host)
from ._handlers import (
    K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT, K_NDARRAY, K_GENERIC, K_LIST,
    K_TUPLE, K_DICT, K_INST, K_INSTX, K_DICTLIKE, K_MODULE, K_TYPE, K_FUNC,
    K_FRAME, K_CELL, K_METHOD, K_BMETHOD, K_WEAKREF, K_MWRAPPER, K_CODE, K_DESCR,
    SIZER_KINDS)
from ._edges import _inline_candidates
from ._fields import DEQUE

# Kinds, types and builtin bases whose objects the snapshot shows whole
# (F_WHOLE, see Capture._whole).
WHOLE_KINDS = (K_LIST, K_TUPLE, K_DICT, K_CELL, K_FUNC, K_METHOD, K_DICTLIKE)
WHOLE_TYPES = (set, frozenset, property, staticmethod, classmethod, type(sys.implementation))
WHOLE_BASES = (object, dict, list, tuple, set, frozenset)

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



SKEY_SHIFT = 22
SKEY_MULTI = (1 << SKEY_SHIFT) - 1   # sort key type part shared by several types


class Kinds:
    """Type registration, mixed into Capture (whose tables it fills)."""

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
        if view is not None and _has(_T_MRO(t), DEQUE):
            self.limited.add(tid)
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
