"""The chunk pipeline of a capture: Chunks, mixed into Capture.

run_batch(container) writes the objects of a list a chunk at a time:

* Work is done a chunk of objects at a time with vectorized C-level calls
  (map, itertools, array), so that the per-object cost stays close to a
  bare gc.get_referents traversal. A chunk is grouped by kind and type
  (one list per sort key, see _kinds, filled in one C-level pass); each
  kind has a handler that emits the edges of all its objects at once
  (_edges). What is written of a chunk: its OBJECTS (addresses, types,
  sizes, reference counts, flags, edges), the VALUES of its str, bytes,
  int, float, bool, numpy arrays and memoryviews (with values=True), the
  DIGESTS of its str and bytes, the LIMITS of its deques (a maxlen is
  a size, written with values=False too) and their allocation sites
  (_sites).
* Sizes of exact str/bytes/int/float/list/tuple/dict and plain instances
  are the type's C __sizeof__ called directly plus a per-type constant
  learnt from sys.getsizeof on the first object (much cheaper than
  sys.getsizeof per object); values and STRINGS of ASCII text are joined
  as one str and encoded once.
* While a chunk's reference counts are measured, the agent holds exactly
  `self.rc_offset` references to each object of the chunk (its container
  list, the chunk list and the iterator of map); this is calibrated on a
  probe object run through the same code. The agent keeps no other
  reference to any object of the heap across chunks (types, keys and
  numpy.ndarray are remembered by id, cached key labels by copies).
* The edge targets that gc.get_objects() does not list are queued
  (discovery): an untracked target whose reference count says it has
  exactly one referrer goes to pending_uniq without a seen-set (it cannot
  be met again) and is written with the reference count 1 measured then;
  the others to pending, once each (seen).
"""

from array import array
from itertools import chain, compress, filterfalse, repeat
from operator import not_, sub, is_, is_not, or_

from . import _format as F
from ._introspect import (
    _FR_CODE, _is_tracked, _getrefcount, _getsizeof, PY312, is_agent_code, type_name, CSizer, _host)
from ._handlers import (
    K_LEAF, K_STR, K_BYTES, K_INT, K_FLOAT, K_NDARRAY, K_GENERIC, K_TUPLE, K_DICT, K_FRAME, UNTRACKABLE)
from ._kinds import SKEY_SHIFT, SKEY_MULTI
from ._own import _count_elements
from . import _fields

CHUNK = 1 << 14
IMMORTAL_MIN = (1 << 30) - 64
_OR_WHOLE = bytes(b | F.F_WHOLE for b in range(256))
_WHOLE_OF = (0, F.F_WHOLE)
_TO_WHOLE = bytes([0, F.F_WHOLE]) + bytes(254)
_BOOL_ID = id(bool)
_MEMORYVIEW_ID = id(memoryview)


class Chunks:
    """Writing objects a chunk at a time, mixed into Capture (whose
    tables, queues and writer it uses)."""

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
        per_type = self.per_type
        for sk_, i, j in bounds:
            k = sk_ >> SKEY_SHIFT
            m = j - i
            g = chunk[i:j]
            single = (sk_ & SKEY_MULTI) != SKEY_MULTI
            if single:
                tid = self.skey_tid[sk_]
                typ.extend(F.u32s((tix[tid],)) * m)
                per_type[tid] = per_type.get(tid, 0) + m
            else:
                gtids = list(map(id, map(type, g)))
                tid = gtids[0]
                typ.extend(F.u32s(list(map(tix.__getitem__, gtids))))
                _count_elements(per_type, gtids)
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
            if k == K_STR and not rc1 and _fields.STR_STATE is not None:
                # Interned strs with references from C (at least 3: one
                # more than a str held by two objects could have).
                many = list(compress(range(m), map((3).__le__, rca[i:j])))
                if many:
                    for x in compress(many, _fields.interned(list(map(g.__getitem__, many)))):
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
        lim_addr = F.u64s()
        lim = F.u64s()
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
                labels = list(map(_fields.memoryview_label, g))
                vals.append(_ascii_blob(labels) if all(map(str.isascii, labels))
                            else _blob([x.encode("utf-8", "backslashreplace") for x in labels]))
            if self.limited:
                self._limits(sk_, g, addr[i:j], lim_addr, lim)
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
        if lim_addr:
            self.w.limits(lim_addr, lim)
        if sites is not None:
            self.sites.write(self.w, sites)

    def _limits(self, sk_, g, addr, lim_addr, lim):
        """Appends the address and maxlen of each deque of group g (of
        sort key sk_, at addresses addr) that has a maxlen. deque's own
        getter reads the C field, whatever a subclass defines."""
        if (sk_ & SKEY_MULTI) != SKEY_MULTI:
            if self.skey_tid[sk_] not in self.limited:
                return
        else:
            sel = list(map(self.limited.__contains__, map(id, map(type, g))))
            if not any(sel):
                return
            g = list(compress(g, sel))
            addr = F.u64s(compress(addr, sel))
        try:
            ml = list(map(_fields.DEQUE_MAXLEN, g))
        except Exception as e:  # not a deque after all: no maxlen is written
            _host(e)
            self.warn("%s while reading the maxlen of %d deques; they have none in the snapshot"
                      % (type_name(type(e)), len(g)))
            return
        has = list(map(is_not, ml, repeat(None)))
        if any(has):
            lim_addr.extend(compress(addr, has))
            lim.extend(compress(ml, has))

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

