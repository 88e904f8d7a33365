"""The agent's own objects, which a snapshot leaves out.

The agent's modules (every module of this package's directory), and
everything that only they hold (their dicts, functions, classes, code,
constants, the writer's tables), are not the program's: a snapshot that
listed them would count their bytes as the program's and show them among
the biggest objects. own_objects() finds them before the walk:

1. From the agent's modules it follows the references of each object
   (gc.get_referents, and what gc does not see: a class's names and
   subclass record, a code object's fields, a descriptor's name), never
   into another module, a module's dict, or a class that is not the
   agent's.
2. An object so found is the agent's if every reference to it comes from
   the agent's objects (its reference count, less the agent's own
   temporary references, equals the references found to it), repeated
   until no more drop out: an object the program also holds stays in the
   snapshot, and so does everything it refers to. The agent's modules,
   and the functions, classes and code objects defined in its files, are
   the agent's whatever refers to them (a running agent frame holds its
   function; the program may hold heapscope.snapshot).
3. For the objects the agent's objects refer to that stay (shared strs,
   types, modules, None), it counts those references, which the capture
   subtracts from their reference counts: the snapshot then reads as if
   the agent were not there, and its references to the program's objects
   are not mistaken for references from outside the heap.

Like the rest of the agent it runs no code of the program's: the objects
it looks into are the agent's, and of others it reads only ids, types and
reference counts.
"""

import _thread
import sys
from itertools import chain, compress, filterfalse, repeat
from operator import add, is_, not_, sub

from ._introspect import (
    _CODE, _MOD, _MOD_DICT, _T_FLAGS, _T_NAME, _T_QUALNAME, CODE_MEMBERS, DESCRIPTORS, HEAPTYPE,
    PKG_DIRS, READY, _FT, _FN_CODE, _CO_FILENAME, _get_referents, _getrefcount, _dict_items, _is_tracked,
    _is_type, _str_get, _host, _FR, _FR_BACK, _FR_CODE, _FR_GLOBALS, _FR_BUILTINS, PY311, PY313,
    is_agent_code, current_frames)
from . import _native, _fields

try:
    # What collections.Counter counts with, in C; Counter itself checks
    # its argument against an ABC, which caches a weak reference to the
    # argument's type (a change to the heap being walked).
    from _collections import _count_elements
except ImportError:
    def _count_elements(d, it):
        get = d.get
        for x in it:
            d[x] = get(x, 0) + 1

_dict_values = dict.values

# Objects the agent keeps alive with references that are not Python
# references from its objects, which the search could not find or tell
# from the program's: a ctypes callback that a class's allocator slot
# points to (_watch), kept with a reference count of its own that is
# never given back. They and what only they hold are the agent's.
HELD = []
# Functions that give more such objects when the search begins: the
# watch's state, which a thread inside its hook may hold on its frames'
# value stacks (before 3.11, where they cannot be read; a method call
# pushes the object), not only in its locals.
HELD_BY = []

MAX_OBJECTS = 1 << 17   # a bound on the search (the agent has a few thousand objects)


def _agent_file(fn):
    return type(fn) is str and fn.startswith(PKG_DIRS)


# The name the package was loaded under: "heapscope", or the private
# name that heapscope snapshot --python gives it inside another process
# (_attach.py).
_PKG = __name__.rpartition(".")[0] or "heapscope"


def _agent_name(name):
    """Whether name is the package's module name or one of its modules'."""
    return type(name) is str and (name == _PKG or name.startswith(_PKG + "."))


def agent_modules():
    """The agent's modules in sys.modules: the names and the modules."""
    mods = sys.modules
    if type(mods) is not dict:
        return []
    out = []
    for name, m in list(_dict_items(mods)):
        if _agent_name(name) and type(m) is _MOD:
            d = _MOD_DICT(m)
            if type(d) is dict and _agent_file(_str_get(d, "__file__")[1]):
                out.append((name, m))
    return out


def stale_modules(objs):
    """What is left of earlier loads of the agent among objs: heapscope
    snapshot --python loads the package under a new private name
    (_heapscope_attach_XXXX) each time and removes it after, and its
    modules, classes and functions are garbage until the next collection,
    which a capture that does not collect (a fork capture) lists. Looked
    for only when this load is such a one: the modules of those names,
    the classes whose module has such a name, and the functions of the
    agent's files (this load's among them, which the search finds
    anyway)."""
    if not _PKG.startswith("_heapscope_attach_"):
        return []
    out = []
    for o in compress(objs, map(_STALE_KINDS.__contains__, map(id, map(type, objs)))):
        try:
            t = type(o)
            if t is _FT:
                if _agent_file(_CO_FILENAME(_FN_CODE(o))):
                    out.append(o)
                continue
            d = _MOD_DICT(o) if t is _MOD else None
            if t is _MOD:
                name = _str_get(d, "__name__")[1] if type(d) is dict else None
            elif _T_FLAGS(o) & HEAPTYPE and _T_FLAGS(o) & READY:
                name = None
                for r in _get_referents(o):
                    if type(r) is dict:
                        name = _str_get(r, "__module__")[1]
                        break
            else:
                continue
            if type(name) is str and name.startswith("_heapscope_attach_"):
                out.append(o)
        except Exception as e:
            _host(e)
    return out


_STALE_KINDS = frozenset(map(id, (_FT, type, _MOD)))


def _defined_here(o, t):
    """Whether o is a function, class or code object of the agent's files."""
    try:
        if t is _FT:
            return _agent_file(_CO_FILENAME(_FN_CODE(o)))
        if t is _CODE:
            return _agent_file(_CO_FILENAME(o))
        if _is_type(o) and _T_FLAGS(o) & HEAPTYPE and _T_FLAGS(o) & READY:
            for r in _get_referents(o):
                if type(r) is dict:
                    m = _str_get(r, "__module__")[1]
                    return _agent_name(m)
    except Exception as e:
        _host(e)
    return False


def _refs(o, t):
    """The references of o (one entry per reference), for the kinds the
    agent's objects are made of."""
    if t is _FR:
        # A running frame of the agent's: its code and, before 3.11 (after,
        # they are borrowed), its globals and builtins. Not its locals (the
        # capture's state, which the snapshot does not list) nor the
        # program's frame below.
        if PY311:
            return [_FR_CODE(o)]
        return [_FR_CODE(o), _FR_GLOBALS(o), _FR_BUILTINS(o)]
    rs = list(_get_referents(o))
    # A str-keyed dict's keys are not its referents, and are not counted:
    # a dict that shares its keys with others (instances' dicts before
    # 3.11) does not hold them itself.
    if t is _CODE:
        for get, _ in CODE_MEMBERS:
            v = get(o)
            if v is not None:
                rs.append(v)
        for _, col in _native.code_fields([o]):
            if col[0] is not None:
                rs.append(col[0])
    elif id(t) in DESCRIPTORS:
        rs.append(DESCRIPTORS[id(t)][1](o))
        if _fields.DESCR_QUALNAME is not None:
            q = _native.nullable_column([o], _fields.DESCR_QUALNAME)[0]
            if q is not None:
                rs.append(q)
    elif _is_type(o) and _T_FLAGS(o) & HEAPTYPE and _T_FLAGS(o) & READY:
        rs.append(_T_NAME(o))
        rs.append(_T_QUALNAME(o))
        rec = _fields.type_subclasses(o, _T_FLAGS(o))
        if rec is not None:
            rs.append(rec)
    return rs


class Own:
    """What own_objects() found.

    ids: the ids of the agent's objects (see the module comment).
    outside: those of them something else may refer to (the program, a
    running frame of the agent's, a weak reference: the agent's modules,
    functions, classes and code, and any with more references than the
    agent's objects hold), which the snapshot lists as left out.
    refs: {id: references from the agent's objects} for the objects they
    refer to that are not the agent's; types: the ids of their types.
    own_types: the ids of the types of the agent's objects."""

    __slots__ = ("ids", "outside", "refs", "types", "own_types")

    def __init__(self, ids=(), outside=(), refs=None, types=(), own_types=()):
        self.ids = set(ids)
        self.outside = list(outside)
        self.refs = refs if refs is not None else {}
        self.types = set(types)
        self.own_types = set(own_types)


def own_objects(listed=None, objs=None):
    """The agent's own objects (an Own; an empty one if the search fails
    or is too big). The caller holds the list gc.get_objects() gave,
    which refers to every object tracked then: listed is the set of their
    ids where objects are frozen (gc.freeze(): tracked, not listed), else
    None (the tracked ones are listed); objs, if given, is that list, in
    which the modules of earlier loads of the agent are looked for
    (stale_modules)."""
    try:
        return _own_objects(listed, stale_modules(objs) if objs is not None else [])
    except Exception as e:
        _host(e)
        return Own()


def _own_objects(listed, stale=()):
    found = _search(stale)
    if found is None:
        return Own()
    cand, forced, refs = found
    del found
    # References to each candidate from the candidates, and its count
    # less the agent's own: cand holds one, each list in refs one per
    # occurrence, getrefcount's argument one (calibrated on a probe).
    occ = {}
    _count_elements(occ, chain.from_iterable(map(map, repeat(id), refs.values())))
    probe = {0: object()}
    base = list(map(_getrefcount, probe.values()))[0]
    del probe
    ids = list(cand)
    true_rc = dict(zip(ids, map(sub, map(_getrefcount, cand.values()),
                                map(add, repeat(base), map(occ.get, ids, repeat(0))))))
    # The caller's list of gc.get_objects() holds one more.
    inlist = list(map(listed.__contains__, ids) if listed is not None else map(_is_tracked, cand.values()))
    for i in compress(ids, inlist):
        true_rc[i] -= 1
    own_types = {i: id(type(o)) for i, o in cand.items()}
    del cand, inlist
    # Drop what the program holds too, and then what only it referred to.
    own = set(ids)
    count = dict(occ)
    drop = [i for i in ids if true_rc[i] > count.get(i, 0) and i not in forced]
    while drop:
        nxt = []
        for i in drop:
            if i not in own:
                continue
            own.discard(i)
            for j in map(id, refs.get(i, ())):
                count[j] -= 1
                if j in own and j not in forced and true_rc[j] > count[j]:
                    nxt.append(j)
        drop = nxt
    outside = [i for i in own if i in forced or true_rc[i] > count.get(i, 0)]
    # The references to others, by object (kept for their types).
    others = {}
    for i in own:
        for r in refs.get(i, ()):
            j = id(r)
            if j not in own:
                others[j] = r
    shared = {}
    _count_elements(shared, filterfalse(own.__contains__, chain.from_iterable(
        map(map, repeat(id), map(refs.get, own, repeat(()))))))
    shared = {j: shared[j] for j in others}
    types = set(map(id, map(type, others.values())))
    return Own(own, outside, shared, types, set(map(own_types.__getitem__, own)))


def _search(stale=()):
    """(cand, forced, refs): the objects found from the agent's modules
    and the stale modules of earlier loads (id -> object), the ids of
    those that are the agent's whatever holds them, and the references of
    each that may have any (id -> [objects]); None if there are too
    many."""
    seeds = [m for _, m in agent_modules()]
    seeds.extend(stale)
    seeds.extend(HELD)
    for f in HELD_BY:
        seeds.extend(f())
    if not seeds:
        return None
    # The agent's running frames: before 3.11 they hold their globals
    # (the agent's module dicts) and builtins.
    # This module's frames hold this search's state, so they are not
    # candidates; what they refer to is counted under keys no id has.
    # The agent's frames on other threads (a thread inside the watch's
    # hook, the thread that waits for a fork capture's child) hold the
    # agent's objects in their locals too (the hook's self is the
    # watch's state): those references are the agent's.
    here = []
    local = {}   # id(frame) -> what its locals refer to (other threads')
    me = _thread.get_ident()
    for tid, fr in list(_dict_items(current_frames())):
        while fr is not None:
            code = _FR_CODE(fr)
            if is_agent_code(code):
                if _CO_FILENAME(code) != _HERE:
                    seeds.append(fr)
                    if tid != me:
                        local[id(fr)] = _locals_of(fr, code)
                else:
                    here.append(_refs(fr, _FR))
            fr = _FR_BACK(fr)
    code = None
    # Other modules and their dicts are where the search stops.
    stop = set()
    if type(sys.modules) is dict:
        for m in list(sys.modules.values()):
            if type(m) is _MOD and not any(map(is_, seeds, repeat(m))):
                stop.add(id(m))
                stop.add(id(_MOD_DICT(m)))
    cand = dict(zip(map(id, seeds), seeds))
    forced = set(cand)
    refs = dict(zip(range(-1, -1 - len(here), -1), here))
    del here
    stack = seeds
    while stack:
        o = stack.pop()
        rs = refs[id(o)] = _refs(o, type(o)) + local.pop(id(o), [])
        if not rs:
            continue
        d = dict(zip(map(id, rs), rs))
        new = set(d).difference(cand).difference(stop)
        if not new:
            continue
        new = list(map(d.__getitem__, new))
        del d
        # Leaves (str, int...) refer to nothing: no search from them.
        leaf = list(map(_LEAVES.__contains__, map(id, map(type, new))))
        cand.update(zip(map(id, compress(new, leaf)), compress(new, leaf)))
        for r in compress(new, map(not_, leaf)):
            tr = type(r)
            if tr is _MOD or tr is _FR:
                continue
            here = _defined_here(r, tr)
            if not here and _is_type(r):
                continue
            cand[id(r)] = r
            if here:
                forced.add(id(r))
            stack.append(r)
        if len(cand) > MAX_OBJECTS:
            return None
    # The walk may have made frame objects of this thread's frames, this
    # one's among them, and cand holds some: this frame must not hold
    # cand once it returns, or the frames and everything the capture's
    # frames hold would stay alive in a cycle until the next collection
    # (and be in the next snapshot taken without one).
    try:
        return cand, forced, refs
    finally:
        cand = forced = refs = seeds = stack = None


def _locals_of(fr, code):
    """What the locals, cells and free variables of frame fr refer to
    (one entry per slot), and the dict of its locals a trace function
    made (f_locals, before 3.13), or [] where they cannot be read."""
    try:
        if PY313:
            return list(fr.f_locals.values())   # the frame's slots, no dict made
        got = _native.fast_locals(fr, code)
        out = [o for _, o in got] if got else []
        d = _native.frame_locals_mapping(fr)
        if d is not None:
            out.append(d)
        return out
    except Exception as e:
        _host(e)
        return []


_LEAVES = frozenset(map(id, (str, int, float, bytes, bool, type(None), complex)))

_HERE = _CO_FILENAME(_search.__code__)
