"""A census: every object's type and size, without its references.

Private module of the heapscope agent. `heapscope.snapshot(path,
edges=False)` takes a census instead of a full capture: the same objects
(the gc-tracked ones and the untracked objects found as their referents:
str, int, float, bytes...), each with its type, size and flags, but no
edges, reference counts or values. It is what `heapscope summary`, `diff`
and `trend` need, at a fraction of the cost of a full capture; `top`,
`why`, `tree` and `leaks` need a full one and refuse a census.

Every per-object step runs in C over whole chunks (map, set operations,
gc.get_referents over a chunk at once); the only Python-level work is per
type. Like the capture, it never runs the program's code: sizes come from
sys.getsizeof only for types whose __sizeof__ is a C function.
"""

import gc
import sys
from array import array
from itertools import chain, compress, filterfalse, islice, repeat
from operator import and_, eq, is_, is_not, not_

try:
    from operator import call as _call   # 3.11+
except ImportError:
    _call = None

from . import _format as F
from ._own import own_objects, _count_elements
from . import _native
from ._introspect import (
    HAVE_GC, MANAGED_DICT, MANAGED_WEAKREF, READY, _FR, _FR_CODE, _T_FLAGS, _CODE, CODE_MEMBERS,
    _T_NAME, _T_QUALNAME, CSizer, mro_view,
    _host, _is_csizeof, is_agent_code, type_name, materialize_frames,
)

CHUNK = 1 << 16

_getsizeof = sys.getsizeof
_getrefcount = sys.getrefcount
_get_referents = gc.get_referents
_is_tracked = gc.is_tracked

_DICT_SUBCLASS = 1 << 29   # Py_TPFLAGS_DICT_SUBCLASS: dict and its subclasses
_dict_keys = dict.keys     # the C method: it never runs a subclass's code


def _is_dict_type(t):
    return bool(_T_FLAGS(t) & _DICT_SUBCLASS)


def _is_metatype(t):
    """Whether the objects of type t are classes."""
    return bool(_T_FLAGS(t) & (1 << 31))


# Classes made at run time: their __name__ and __qualname__ are str
# objects of their own (a static type's are made anew on each read).
_HEAPTYPE = 1 << 9


class Census:
    """Types are kept by id, never hashed or compared themselves: a
    metaclass's __hash__ or __eq__ is the program's code."""

    def __init__(self, w, warnings):
        self.w = w
        self.warnings = warnings
        self.types = {}           # id(type) -> index in the file's type table
        self.keep = []            # the types, so that their ids stay theirs
        self.unsafe = set()       # ids of types whose __sizeof__ is not C code
        self.sizers = {}          # id(type) -> what gives an object's size (see register)
        self.new_types = []       # (type, index) registered since the last flush
        self.nstrings = 0
        self.dict_types = {id(dict)}  # ids of dict types (dict, subclasses) seen so far
        self.meta_types = {id(type)}  # ids of types whose objects are classes

    def register(self, t):
        i = len(self.types)
        self.types[id(t)] = i
        self.keep.append(t)
        self.new_types.append(t)
        if _is_dict_type(t):
            self.dict_types.add(id(t))
        if _is_metatype(t):
            self.meta_types.add(id(t))
        # The size: sys.getsizeof when the type's __sizeof__ is C code; the
        # C __sizeof__ itself when that is all getsizeof would add up (no
        # GC header or pre-header: str, int, float, bytes), which is
        # several times cheaper; a CSizer for the others, and for types
        # getsizeof cannot be trusted with (not ready, or a class dict
        # with keys that are not str: see mro_view).
        sizer = None
        try:
            view = mro_view(t)
            if view is not None and view[1]:
                f = view[0].get("__sizeof__")
                if _is_csizeof(f):
                    plain = not _T_FLAGS(t) & (HAVE_GC | MANAGED_DICT | MANAGED_WEAKREF)
                    sizer = f if plain else _getsizeof
            view = f = None
        except Exception as e:
            _host(e)
        if sizer is None:
            sizer = CSizer(t)
            self.unsafe.add(id(t))
        self.sizers[id(t)] = sizer
        return i

    def flush_types(self):
        if not self.new_types:
            return
        names = [type_name(t).encode("utf-8", "backslashreplace") for t in self.new_types]
        self.w.strings(names)
        first = self.nstrings + 1
        self.nstrings += len(names)
        self.w.types([id(t) for t in self.new_types], list(range(first, first + len(names))))
        self.new_types = []

    def _types(self, chunk):
        """The ids of the types of the objects of chunk, registering new
        types."""
        tids = list(map(id, map(type, chunk)))
        if None in map(self.types.get, tids):
            for o, i in zip(chunk, tids):
                if i not in self.types:
                    self.register(type(o))
        return tids

    def _sizes(self, chunk, tids):
        if _call is not None:
            return list(map(_call, map(self.sizers.__getitem__, tids), chunk))
        if self.unsafe and not self.unsafe.isdisjoint(tids):
            sizers = self.sizers
            return [sizers[i](o) for i, o in zip(tids, chunk)]
        return list(map(_getsizeof, chunk))

    def emit(self, chunk, tracked, ids=None):
        tids = self._types(chunk)
        tix = list(map(self.types.__getitem__, tids))
        self.flush_types()
        sizes = self._sizes(chunk, tids)
        n = len(chunk)
        self.w.objects(F.u64s(map(id, chunk) if ids is None else ids), F.u32s(tix), F.u64s(sizes), bytes(8 * n),
                       (b"\x01" if tracked else b"\x00") * n, bytes(4 * n), b"", b"")
        return tids


class Tally(Census):
    """A census kept in memory (tally()): how many objects of each type,
    and their bytes, with no file and no per-object record. Sizes are
    counted by (type, size) pair, one C-level pass per chunk, and summed
    per type at the end (the pairs are few: most types have one size or
    a few)."""

    def __init__(self, warnings):
        Census.__init__(self, None, warnings)
        self.pairs = {}   # (id(type), size) -> objects

    def flush_types(self):
        self.new_types = []

    def emit(self, chunk, tracked, ids=None):
        tids = self._types(chunk)
        _count_elements(self.pairs, zip(tids, self._sizes(chunk, tids)))
        return tids

    def result(self):
        """{type name: [objects, bytes]}; types that share a name (classes
        a factory makes) are summed."""
        by_id = {}
        for (tid, size), n in self.pairs.items():
            r = by_id.get(tid)
            if r is None:
                r = by_id[tid] = [0, 0]
            r[0] += n
            r[1] += n * size
        out = {}
        for t in self.keep:
            r = by_id.get(id(t))
            if r is None:
                continue
            name = type_name(t)
            o = out.get(name)
            if o is None:
                out[name] = r
            else:
                o[0] += r[0]
                o[1] += r[1]
        return out


class Counter(Census):
    """Objects counted by type, nothing else (counts()): no sizes, so no
    sizer per type and no per-object size."""

    def __init__(self):
        Census.__init__(self, None, [])
        self.n = {}      # id(type) -> objects

    def register(self, t):
        self.types[id(t)] = len(self.keep)
        self.keep.append(t)
        if _is_dict_type(t):
            self.dict_types.add(id(t))
        if _is_metatype(t):
            self.meta_types.add(id(t))

    def flush_types(self):
        pass

    def emit(self, chunk, tracked, ids=None):
        # Counted first: a type not registered yet is a new key of n.
        tids = list(map(id, map(type, chunk)))
        n = self.n
        _count_elements(n, tids)
        if len(n) > len(self.types):
            for o, i in zip(chunk, tids):
                if i not in self.types:
                    self.register(type(o))
        return tids


class _Found:
    """The untracked objects found. Most have exactly one reference, so
    no other object can lead to them again: those are emitted at once,
    while they are fresh in the processor's cache, and only the
    containers among them are kept, to be looked into. The others are
    found again and again (shared strs, small ints), so they go to a dict
    by id, which keeps each once (the objects are alive: ids are not
    reused), and are emitted when the walk takes them from it."""

    __slots__ = ("c", "warnings", "look", "found", "base")

    def __init__(self, c, warnings):
        self.c = c
        self.warnings = warnings
        self.look = []    # containers and code objects of one reference, to look into
        self.found = {}
        self.base = _calibrate()

    def take(self, u):
        one = list(map(eq, map(_getrefcount, u), repeat(self.base)))
        singles = list(compress(u, one))
        if singles:
            tids = self.c.emit(singles, False)
            if not _LOOK.isdisjoint(tids):
                self.look.extend(compress(singles, map(_LOOK.__contains__, tids)))
        del singles
        many = list(compress(u, map(not_, one)))
        if many:
            self.found.update(zip(map(id, many), many))

    def add_keys(self, objs, tids):
        # A dict whose keys are all str keeps them in a table that
        # gc.get_referents does not report: read them from the dicts
        # themselves (only those: other dicts report their keys).
        c = self.c
        if c.dict_types.isdisjoint(tids):
            return
        dicts = list(compress(objs, map(c.dict_types.__contains__, tids)))
        try:
            keys = list(chain.from_iterable(map(_dict_keys, dicts)))
            if not _STR_ONLY.issuperset(map(id, map(type, keys))):
                # Some dict has a key that is not a str: the keys of each
                # dict whose keys are all str (by the ids of their types:
                # a metaclass's __hash__ is the program's code).
                ok = list(map(_STR_ONLY.issuperset, map(map, repeat(id), map(map, repeat(type), map(_dict_keys, dicts)))))
                keys = list(chain.from_iterable(map(_dict_keys, compress(dicts, ok))))
                del ok
            self.take(keys)
            del keys
        except RuntimeError:
            self.warnings.append("a dict changed size while its keys were read; some keys may be missing")


# The types of the untracked objects looked into (by id: see Census):
# containers, whose items CPython may leave untracked too, and code
# objects, whose fields gc does not report.
_LOOK = frozenset(map(id, (tuple, dict, frozenset, _CODE)))
_STR_ONLY = frozenset((id(str),))


def _code_fields(codes):
    """The objects code objects hold (what the capture's edges of code
    objects lead to), one entry per reference."""
    cols = [list(map(get, codes)) for get, _ in CODE_MEMBERS]
    cols.extend(col for _, col in _native.code_fields(codes))
    flat = list(chain.from_iterable(cols))
    return list(compress(flat, map(is_not, flat, repeat(None))))


def _calibrate():
    """The reference count take() sees for an object that exactly one
    other object refers to: that reference, the list take() is given,
    and the iteration's own."""
    holder = [float("7.25")]   # a new float: one reference, the list's
    u = list(filterfalse(_is_tracked, _get_referents(holder)))
    rc = list(map(_getrefcount, u))
    return rc[0]


def _own_frames(objs):
    """The agent's own frame objects among objs."""
    out = []
    for o in compress(objs, map(is_, map(type, objs), repeat(_FR))):
        try:
            if is_agent_code(_FR_CODE(o)):
                out.append(id(o))
        except Exception as e:
            _host(e)
    return out


def _listed(collect):
    """gc.get_objects() without the agent's own objects and frames, and
    the warnings so far. The caller holds the collector off."""
    if collect:
        gc.collect()
    materialize_frames()
    objs = gc.get_objects()
    warnings = []
    try:
        frozen = gc.get_freeze_count()
    except AttributeError:
        frozen = 0
    # The agent's own objects (its modules and what only they hold)
    # and its frames are not the program's.
    own = own_objects(set(map(id, objs)) if frozen else None, objs).ids
    own.update(_own_frames(objs))
    objs = list(compress(objs, map(not_, map(own.__contains__, map(id, objs)))))
    if frozen:
        warnings.append("%d objects are frozen (gc.freeze()); a census does not list them" % frozen)
    return objs, warnings


def _walk(c, objs, warnings):
    """Emits into c every object of objs and every untracked object found
    from them (see the module comment). objs is emptied."""
    # (No closure here: its cells would exist before gc.get_objects()
    # and lead the census to its own bookkeeping.)
    fd = _Found(c, warnings)
    look, found, take, add_keys = fd.look, fd.found, fd.take, fd.add_keys
    meta = c.meta_types
    for i in range(0, len(objs), CHUNK):
        chunk = objs[i:i + CHUNK]
        tids = c.emit(chunk, True)
        take(list(filterfalse(_is_tracked, _get_referents(*chunk))))
        add_keys(chunk, tids)
        # A class's __name__ and __qualname__ are not reported either.
        if not meta.isdisjoint(tids):
            classes = list(compress(chunk, map(meta.__contains__, tids)))
            heaptypes = list(compress(classes, map(eq, map(and_, map(_T_FLAGS, classes), repeat(_HEAPTYPE | READY)),
                                                   repeat(_HEAPTYPE | READY))))
            del classes
            if heaptypes:
                u = list(filterfalse(_is_tracked, chain(map(_T_NAME, heaptypes), map(_T_QUALNAME, heaptypes))))
                found.update(zip(map(id, u), u))
                del u
            del heaptypes
    del objs[:]
    chunk = tids = None
    # CPython leaves tuples and dicts of atomic items untracked; their
    # items are found by looking into them, each container once: those
    # of one reference as take() met them, the others as they are taken
    # from found, where they are emitted. The census's own dict of what
    # it found holds only untracked objects, so it is untracked too:
    # should a frame of the program's lead to it, it is neither emitted
    # nor looked into.
    done = 0
    while done < len(found) or look:
        new = list(islice(found.values(), done, done + CHUNK))
        done += len(new)
        if any(map(is_, new, repeat(found))):
            new = [o for o in new if o is not found]
        if new:
            tids = c.emit(new, False)
            if not _LOOK.isdisjoint(tids):
                look.extend(compress(new, map(_LOOK.__contains__, tids)))
            new = tids = None
        while look:
            todo = look[-CHUNK:]
            del look[-CHUNK:]
            # Code objects: their fields, which gc does not report.
            code = list(map(is_, map(type, todo), repeat(_CODE)))
            if any(code):
                take(list(filterfalse(_is_tracked, _code_fields(list(compress(todo, code))))))
                todo = list(compress(todo, map(not_, code)))
            del code
            if todo:
                take(list(filterfalse(_is_tracked, _get_referents(*todo))))
                add_keys(todo, list(map(id, map(type, todo))))
            del todo
    found.clear()


def census(path, collect, state, open_temp):
    """Writes the census into a temporary file next to path (see
    _capture.capture for state); returns (writer, warnings) before META,
    WARNINGS and END are written."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        objs, warnings = _listed(collect)
        f = open_temp(path, state)
        w = F.Writer(f, False)
        c = Census(w, warnings)
        _walk(c, objs, warnings)
        del objs
        roots = [(m, k) for k, m in list(dict.items(sys.modules)) if type(k) is str]
        names = [k.encode("utf-8", "backslashreplace") for _, k in roots]
        w.strings(names)
        first = c.nstrings + 1
        w.roots([id(m) for m, _ in roots], [F.ROOT_MODULE] * len(roots), list(range(first, first + len(roots))))
        return w, warnings
    finally:
        if was_enabled:
            gc.enable()


def tally(collect=True, classes=None):
    """The census's objects counted in memory: {type name: [objects,
    bytes]}, and the warnings. The same objects as census(), with no
    file. classes, a dict, is given {type name: [the types of that
    name]} too (the classes a factory makes share one)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        objs, warnings = _listed(collect)
        c = Tally(warnings)
        _walk(c, objs, warnings)
        del objs
        if classes is not None:
            for t in c.keep:
                classes.setdefault(type_name(t), []).append(t)
        return c.result(), warnings
    finally:
        if was_enabled:
            gc.enable()


# What counts() keeps for the leak check: (objects by type id, the types
# by id) per count. counts() leaves these out by id (the list, its
# tuples, their dicts), so that they do not count as growth.
COUNTS = []


def counts(collect=True):
    """The census's objects counted by type, appended to COUNTS as
    ({id(type): objects}, {id(type): type}): the cheap count the leak
    check decides from. Unlike tally(), no bytes, and the agent's own
    objects are not looked for (own_objects() costs as much as a third
    of the walk on a large heap): the check compares counts taken at the
    same place in its loop, where the agent holds the same objects each
    time, save the counts kept here, which are left out. Its frames are
    left out as in a census."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        if collect:
            gc.collect()
        materialize_frames()
        objs = gc.get_objects()
        skip = set(_own_frames(objs))
        skip.add(id(COUNTS))
        skip.update(map(id, COUNTS))
        skip.update(map(id, chain.from_iterable(COUNTS)))
        objs = list(compress(objs, map(not_, map(skip.__contains__, map(id, objs)))))
        del skip
        c = Counter()
        _walk(c, objs, c.warnings)
        del objs
        COUNTS.append((c.n, dict(zip(map(id, c.keep), c.keep))))
    finally:
        if was_enabled:
            gc.enable()
