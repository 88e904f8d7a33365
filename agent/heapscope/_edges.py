"""Naming the edges of a group of objects of one kind (methods of Capture).

Edges is mixed into Capture (its state is made in Capture.__init__): the
labels of dict entries (key_labels, cached by copies of the keys), the
edges of the common kinds a whole group at a time (leaves, lists, tuples,
dicts, plain instances, generic containers), the attribute names of
instances whose attributes are stored inline (3.11+: _name_inline,
_learn, _inline_candidates), and, for the rarer kinds, the dispatch to
the per-object handlers of _handlers.
"""

import types as _types
from itertools import chain, compress, repeat
from operator import and_, not_, add, is_, is_not, itemgetter

from . import _format as F
from ._introspect import (
    _FT, _FN_CODE, _CO_NAMES, _CO_CONSTS, CODE_MEMBERS, DESCRIPTORS, _T_FLAGS, _T_DICTOFFSET,
    _get_referents, _dict_items, _dict_len, _chain_flat, _second,
    INLINE_VALUES, type_name, mro_view, generic_getattr, plain_storage, _copy_str, _host)
from ._handlers import (
    LEAVES, K_GENERIC, K_LIST, K_TUPLE, K_DICT, K_INST, K_INSTX, K_DICTLIKE, K_CODE, K_DESCR, SLOW, slot_plan,
    slot_members)
from . import _native, _fields

MAX_KEYCACHE = 1 << 16     # cached dict-key labels


class Edges:
    """Edge naming, mixed into Capture. Its methods use the state
    Capture.__init__ makes (L_KEY, L_CLASS, _tails, the key caches,
    attr_dicts, closures, layouts, inline_names) and Capture's name,
    names_of and warn; _edges is called by Capture._emit for each group."""

    # -- labels ---------------------------------------------------------------

    def key_labels(self, keys, attr, distinct=False):
        """Labels of dict values stored under keys (a list; distinct: the
        keys of one dict)."""
        n = len(keys)
        if not n:
            return []
        if not attr and not self.values:
            # The keys of the program's dicts are its data.
            return [self.L_VALUE] * n
        isstr = list(map(is_, map(type, keys), repeat(str)))   # identity: never compare types
        if all(isstr):
            return self._str_labels(keys, attr, distinct)
        res = [0] * n
        si = list(compress(range(n), isstr))
        if si:
            for i, l in zip(si, self._str_labels(list(map(keys.__getitem__, si)), attr)):
                res[i] = l
        for i in compress(range(n), map(not_, isstr)):
            if not self.values:
                res[i] = self.L_VALUE
                continue
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
        elif k == K_CODE:
            self._code(g, ne, tgt, lab)
        elif k == K_DESCR:
            self._descr(g, ne, tgt, lab)
        elif k == K_INSTX and self._slotted(g, base, ne, tgt, lab):
            pass
        elif k == K_DICTLIKE:
            self._dictlike(g, base, ne, tgt, lab)
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
                              % (type_name(type(e)), type_name(type(o))))
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
            if key[1] == 2:
                # One referent besides the class: it may be a __dict__
                # getattr would search (see plain_storage).
                idxs = list(compress(idxs, map(plain_storage, map(rss.__getitem__, idxs))))
                if not idxs:
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
        if n == 2:
            idxs = list(compress(idxs, map(plain_storage, map(rss.__getitem__, idxs))))
            if not idxs:
                return None
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

    # -- instances of classes with __slots__ ----------------------------------------

    def slot_members(self, t):
        """_handlers.slot_members, once per class."""
        m = self.slot_cache.get(id(t))
        if m is None:
            m = self.slot_cache[id(t)] = slot_members(self, t)
        return m

    def _slotted(self, g, base, ne, tgt, lab):
        """Edges of a group of instances of one class whose instances are
        all slots (see _handlers.slot_plan), a whole group at a time.
        Instances are taken by referent count: for each count, which
        slots are set is learnt on one instance (an empty slot is no
        referent), and every instance with that count is checked to have
        those slots, in that order, then the class (by identity with each
        slot's own C __get__); the others go through the per-object
        handler. False if the class is not of that kind."""
        t = type(g[0])
        plan = self.slot_plans.get(id(t))
        if plan is None:
            plan = self.slot_plans[id(t)] = slot_plan(self, t)
        if not plan:
            return False
        rss = list(map(_get_referents, g))
        lens = list(map(len, rss))
        rows = [None] * len(g)
        for n in set(lens):
            idx = list(compress(range(len(g)), map(n.__eq__, lens)))
            layout = self._slot_layout(t, plan, n, g[idx[0]])
            if layout is None:
                continue
            getters, row = layout
            G = list(map(g.__getitem__, idx))
            RS = list(map(rss.__getitem__, idx))
            try:
                good = list(map(is_, map(itemgetter(n - 1), RS), repeat(t)))
                for j, get in enumerate(getters):
                    good = list(map(and_, good, map(is_, map(get, G), map(itemgetter(j), RS))))
            except AttributeError:   # a slot of the layout is empty in one of them
                continue
            for i in compress(idx, good):
                rows[i] = row
            del G, RS
        self._rest(K_INSTX, g, base, rss, rows, ne, tgt, lab)
        return True

    def _rest(self, k, g, base, outs, rows, ne, tgt, lab):
        """Edges of a group whose rows the fast path of kind k left None
        (their objects go through the per-object handler), then the
        group's edges appended to ne, tgt and lab."""
        for i, o in enumerate(g):
            if rows[i] is not None:
                continue
            try:
                ts, ls, op = SLOW[k](self, o)
            except Exception as e:
                _host(e)
                ts = _get_referents(o)
                ls = [0] * len(ts)
                op = True
            outs[i] = ts
            rows[i] = ls
            if op:
                self.opaque.append(base + i)
        ne.extend(map(len, outs))
        tgt.extend(chain.from_iterable(outs))
        lab.extend(chain.from_iterable(rows))

    def _dictlike(self, g, base, ne, tgt, lab):
        """Edges of a group of instances of one dict subclass: an instance
        whose referents are its class and then its entries (their values,
        or their keys and values, as dict_traverse visits them: no slots,
        no instance attributes) gets its class and its entries, named as a
        dict's, a whole group at a time; the others go through the
        per-object handler."""
        t = type(g[0])
        lens = []
        try:
            flat = list(_chain_flat(_chain_flat(map(_second, zip(
                map(lens.append, map(_dict_len, g)), map(_dict_items, g))))))
            if len(lens) != len(g) or 2 * sum(lens) != len(flat):
                lens = None
        except RuntimeError:
            lens = None
        rows = [None] * len(g)
        outs = [None] * len(g)
        if lens is not None:
            # The word that holds an instance's __dict__, if it has one.
            doff = self.dict_offsets.get(id(t), False)
            if doff is False:
                doff = self.dict_offsets[id(t)] = _fields.dict_pointer_offset(t, _T_FLAGS(t), _T_DICTOFFSET(t))
            dw = _native.words(map(add, map(id, g), repeat(doff))) if doff is not None else None
            kl = self.key_labels(flat[0::2], False)
            lk, lc, ld = self.L_KEY, self.L_CLASS, self.L_DICT
            off = 0
            for i, n in enumerate(lens):
                kv = flat[2 * off:2 * (off + n)]
                rs = _get_referents(g[i])
                d = 1 if dw is not None and rs and dw[i] == id(rs[0]) and type(rs[0]) is dict else 0
                if len(rs) > d and rs[d] is t and (
                        (len(rs) == d + n + 1 and all(map(is_, rs[d + 1:], kv[1::2]))) or
                        (len(rs) == d + 2 * n + 1 and all(map(is_, rs[d + 1:], kv)))):
                    outs[i] = rs[:d + 1] + kv
                    row = [lk] * (d + 2 * n + 1)
                    row[d] = lc
                    if d:
                        row[0] = ld
                        self.attr_dicts.add(id(rs[0]))
                    row[d + 2::2] = kl[off:off + n]
                    rows[i] = row
                off += n
            del flat, kv, rs
        self._rest(K_DICTLIKE, g, base, outs, rows, ne, tgt, lab)

    def _slot_layout(self, t, plan, n, o):
        """([getter], labels) of the instances of t with n referents whose
        set slots are those of o, or None if o's referents are not its set
        slots and its class (learnt once per class and count)."""
        key = (id(t), n)
        if key in self.slot_layouts:
            return self.slot_layouts[key]
        getters, labels = plan
        got = []
        for j, get in enumerate(getters):
            try:
                get(o)
            except AttributeError:
                continue
            got.append(j)
        lay = None
        if len(got) + 1 == n:
            lay = (list(map(getters.__getitem__, got)), tuple(map(labels.__getitem__, got)) + (labels[-1],))
        self.slot_layouts[key] = lay
        return lay

    def _code(self, g, ne, tgt, lab):
        # Code objects are not GC types (gc.get_referents gives nothing):
        # their fields, read through CodeType's members and _native.
        cols = [(n, list(map(get, g))) for get, n in CODE_MEMBERS]
        cols.extend(_native.code_fields(g))
        self._columns(cols, len(g), ne, tgt, lab)

    def _descr(self, g, ne, tgt, lab):
        # A builtin type's descriptors: gc sees only their class. One type
        # per group (a descriptor type's members read its own instances).
        objclass, name = DESCRIPTORS[id(type(g[0]))]
        cols = [("__objclass__", list(map(objclass, g))), ("__name__", list(map(name, g)))]
        if _fields.DESCR_QUALNAME is not None:
            cols.append(("__qualname__", _native.nullable_column(g, _fields.DESCR_QUALNAME)))
        self._columns(cols, len(g), ne, tgt, lab)

    def _columns(self, cols, n, ne, tgt, lab):
        """Internal edges of n objects from cols [(name, [target or None
        per object])], in column order."""
        labels = [self._internal(c) for c, _ in cols]
        flat = list(chain.from_iterable(zip(*[c for _, c in cols])))
        labs = labels * n
        keep = list(map(is_not, flat, repeat(None)))
        if all(keep):
            ne.extend(repeat(len(labels), n))
            tgt.extend(flat)
            lab.extend(labs)
        else:
            ne.extend(map(sum, zip(*[iter(keep)] * len(labels))))
            tgt.extend(compress(flat, keep))
            lab.extend(compress(labs, keep))

    def _internal(self, n):
        """The label of an internal edge named n."""
        l = self.L.get(n)
        if l is None:
            l = self.L[n] = self.name(n)
        return l | F.INTERNAL

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
                map(lens.append, map(_dict_len, g)), map(_dict_items, g))))))
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


def _inline_candidates(t, view=None):
    """Attribute names instances of t may hold inline, as copies, if t's
    attribute lookup cannot run the program's code or compare its keys
    (generic_getattr); else (): the names in t's shared keys, and those
    its methods use. view: t's mro_view, if made already."""
    try:
        if view is None:
            view = mro_view(t)
        if not generic_getattr(view):
            return ()
        defined = view[0]
        seen = {}
        # The names in the class's shared keys: every attribute set on
        # an instance, also from outside the class (setattr, obj.x = ...).
        for x in _fields.cached_key_names(t, _T_FLAGS(t)):
            seen[x] = True
        for c, d in view[2]:
            if c is object:
                continue
            st = d.get("__static_attributes__")
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
            if x.startswith("__") or x in defined:
                continue
            out.append(_copy_str(x))
        return tuple(out[:256])
    except Exception as e:
        _host(e)
        return ()
