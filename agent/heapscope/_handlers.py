"""Object kinds and the per-object edge-naming handlers of the rarer kinds.

A chunk of objects is grouped by kind (K_*; a type's kind is decided once,
by Capture.register); the common kinds are handled a whole group at a
time by the methods of _edges.Edges, the rarer ones here, one object at a
time: SLOW maps such a kind to its handler h(cap, o), which returns
(targets, labels, opaque) for object o, naming its gc.get_referents by
identity with the objects read through the C accessors of _introspect.
"""

import types as _types

from . import _format as F
from ._introspect import (
    _T_MRO, _T_BASES, _T_BASE, _T_FLAGS, _T_NAME, _T_QUALNAME,
    _FN_FIELDS, _FN_CODE, _FN_CLOSURE,
    _FR_BACK, _FR_CODE, _FR_GLOBALS, _FR_BUILTINS, _FR_LOCALS, _FLP, _FLP_ITEMS,
    _MT_FUNC, _MT_SELF, _BT_SELF, _BT_MODULE, _MW_SELF, _MOD_DICT, _CELL,
    _WREF, _WREF_CALL, _WREF_CB, _MEMBER,
    _get_referents, _dict_items,
    HEAPTYPE, MANAGED_DICT, LIST_BACKWARDS, PY311, PY313, READY,
    _tp_dict, _has, _is_type, _mro_lookup, _str_get, _optimized, _host, _T_DICTOFFSET, _MEMBER_CLASS)
from . import _native, _fields
from ._native import free_var_names

# Object kinds; a chunk is grouped by kind and each kind has a handler.
(K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT, K_NDARRAY, K_GENERIC, K_LIST,
 K_TUPLE, K_DICT, K_INST, K_INSTX, K_DICTLIKE, K_MODULE, K_TYPE, K_FUNC,
 K_FRAME, K_CELL, K_METHOD, K_BMETHOD, K_WEAKREF, K_MWRAPPER, K_CODE, K_DESCR) = range(24)
LEAVES = (K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT)
# Kinds whose objects are never gc-tracked (not GC types).
UNTRACKABLE = (K_STR, K_BYTES, K_INT, K_FLOAT, K_CODE)
# Kinds whose sizes are the type's C __sizeof__ plus a per-type constant
# (the GC header and pre-header that sys.getsizeof adds).
SIZER_KINDS = (K_STR, K_BYTES, K_INT, K_FLOAT, K_LIST, K_TUPLE, K_DICT, K_INST)


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
    for get, l in cap.slot_members(t):
        try:
            val = get(o, t)
        except AttributeError:   # an empty slot
            continue
        cands.append((val, l))


def slot_members(cap, t):
    """[(getter, label)] of the slots of t's heap classes (their member
    descriptors, each read by its own C __get__), in MRO order."""
    out = []
    for c in _T_MRO(t):
        if c is object or not _is_type(c) or not _T_FLAGS(c) & HEAPTYPE:
            continue
        d = _tp_dict(c)
        if d is None:
            continue
        for name, v in list(_dict_items(d)):
            if type(v) is _MEMBER and type(name) is str and _MEMBER_CLASS(v) is c:
                out.append((v.__get__, cap.name("." + name)))
    return out


def slot_plan(cap, t):
    """How instances of t lay out their referents, if they are all slots:
    ([getter], labels) where getter reads the j-th referent of an
    instance whose slots are all set (the slots of the classes of its
    tp_base chain, the class's own first, each class's in the order of
    its members, as subtype_traverse visits them) and labels are the
    labels of all its referents (the slots, then __class__). () when t's
    instances have a __dict__ or a builtin base other than object."""
    if _T_FLAGS(t) & MANAGED_DICT or _T_DICTOFFSET(t):
        return ()
    getters = []
    labels = []
    c = t
    while c is not object:
        if not _is_type(c) or not _T_FLAGS(c) & HEAPTYPE or not _T_FLAGS(c) & READY:
            return ()
        d = _tp_dict(c)
        if d is None:
            return ()
        for name, v in list(_dict_items(d)):
            if type(v) is _MEMBER and type(name) is str and _MEMBER_CLASS(v) is c:
                getters.append(v.__get__)
                labels.append(cap.name("." + name))
        c = _T_BASE(c)
    labels.append(cap.L_CLASS)
    return getters, tuple(labels)


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
    if _fields.STGDICT is not None and id(t) == _fields.STGDICT[0]:
        for v, n in _fields.stgdict_fields(o):
            cands.append((v, cap._internal(n)))
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
    c = _fields.module_copy(m)
    if c is not None:
        ts.append(c)
        ls.append(cap._internal("m_copy"))
    return ts, ls, False


def _h_type(cap, t):
    if not _T_FLAGS(t) & READY:
        # Its MRO, bases and dict may be NULL: nothing of it is read.
        return [], [], True
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
    # A static type (a builtin's, an extension's) is not a GC object:
    # gc.get_referents gives nothing, and what it holds is read above.
    ts, ls = _match(rs, cands, not _T_FLAGS(t) & HEAPTYPE)
    rec = _fields.type_subclasses(t, _T_FLAGS(t))
    if rec is not None:
        ts.append(rec)
        ls.append(L["<subclasses>"] | I)
    rec = None
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
        names = free_var_names(_FN_CODE(f), len(cl))
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
    fn = _native.frame_function(fr)
    if fn is not None:
        cands.append((fn, cap._internal("f_func")))
    fn = None
    items = _frame_locals(cap, fr, code, executing, glob, cands)
    if items is None:
        # On 3.11+ an executing frame's locals are not its referents.
        op = PY311 and executing and _optimized(code)
        items = ()
    else:
        op = False
    for k, v in items:
        if type(k) is str:
            cands.append((v, cap.name(("<cell> " if type(v) is _CELL else "<local> ") + k)))
    ts, ls = _match(rs, cands, executing)
    return ts, ls, op


def _frame_locals(cap, fr, code, executing, glob, cands):
    """The (name, object) pairs of frame fr's locals, without making or
    changing its f_locals (see _native); appends the f_locals mapping
    the frame already has to cands. None if they cannot be read."""
    if PY313:
        if not (executing and _optimized(code)):
            return ()   # a finished frame's locals are its referents, unnamed
        loc = _FR_LOCALS(fr)   # a FrameLocalsProxy: reads the frame, makes nothing
        if _FLP_ITEMS is not None and type(loc) is _FLP:
            return list(_FLP_ITEMS(loc))
        return None
    loc = _native.frame_locals_mapping(fr)
    if loc is not None and loc is not glob:
        cands.append((loc, cap.L["f_locals"] | F.INTERNAL))
    loc = None
    if not _optimized(code):
        return ()   # a module or class body: its names are in f_locals
    return _native.fast_locals(fr, code)


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
    b = _str_get(d, "base")[1].__get__(a, nd)
    if b is not None:
        rs.append(b)
        ls.append(cap.L["base"])
    op = False
    try:
        dt = _str_get(d, "dtype")[1].__get__(a, nd)
        if cap.values:
            lb = _fields.array_label(a, dt)
            if lb is not None:
                cap.nd_labels[id(a)] = lb
        dtt = type(dt)
        ho = cap.np_hasobject.get(id(dtt))
        if ho is None:
            found, ho = _mro_lookup(dtt, "hasobject")
            if not found or type(ho) is not _types.GetSetDescriptorType:
                ho = False
            cap.np_hasobject[id(dtt)] = ho
        if ho is not False and ho.__get__(dt, dtt):
            op = True
    except Exception as e:
        _host(e)
        op = True
    return rs, ls, op


SLOW = {K_NDARRAY: _h_ndarray, K_INSTX: _h_instx, K_DICTLIKE: _h_dictlike,
        K_MODULE: _h_module, K_TYPE: _h_type, K_FUNC: _h_func, K_FRAME: _h_frame,
        K_CELL: _h_cell, K_METHOD: _h_method, K_BMETHOD: _h_bmethod,
        K_WEAKREF: _h_weakref, K_MWRAPPER: _h_mwrapper}
