"""The heap walker of the heapscope agent: capture() and its Capture.

This module holds Capture (a snapshot's state: the string table, the
roots, the interpreter's references) and capture(), which drives it. The
rest of the walker is in
  _kinds       Kinds, mixed into Capture: the type table, each type's kind
               and sort key, sizes getsizeof must not give, F_WHOLE
  _chunks      Chunks, mixed into Capture: the chunk pipeline (grouping,
               reference counts, sizes, flags, values, digests, discovery
               of unlisted objects)
  _edges       Edges, mixed into Capture: naming the edges of a group of one
               kind (dict keys, sequences, instances' inline attributes)
  _handlers    object kinds, and the per-object edge handlers of the rarer kinds
  _introspect  safe C-level reading of objects, types, code and frames;
               recognizing the agent's own code and the program's exceptions
  _native      what is read of CPython's frames and code objects with
               ctypes: frames' fast locals (3.9-3.12), code objects' fields
               gc does not report; _fields the same for descriptors,
               classes, modules, strs, instances and numpy arrays; _interp
               the interpreter state
  _own         the agent's own objects, which the snapshot leaves out

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
* Phase 1 walks gc.get_objects(), except exact dicts and tuples, which
  wait until the objects that give their entries names (modules, classes,
  instances, functions with closures) are done. Objects gc.get_objects()
  does not list (untracked str/int/float/tuple/dict, numpy arrays,
  executing frames, frozen objects) are discovered as edge targets and
  queued; an untracked target whose reference count says it has exactly
  one referrer is queued without a seen-set (it cannot be met again),
  which keeps the seen-set small (see _chunks).
* Work is done a chunk of objects at a time with vectorized C-level calls
  (_chunks), which also says how the reference counts and sizes written
  are measured.
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
from itertools import compress, repeat
from operator import is_

from . import _format as F
from ._introspect import (
    _FR_BACK, _FR_CODE, _MOD, _MOD_DICT, _dict_items, PY313, HASH_SEED_FIXED,
    is_agent_code, type_name, _str_get, safe_attr, _copy_str, executing_frame_ids, current_frames,
    materialize_frames, _host, from_host)
from ._kinds import Kinds
from ._chunks import Chunks, _ascii_blob
from ._edges import Edges, _Tails
from ._own import own_objects
from . import _native, _interp
from . import _sites
from . import _untraced
from . import _fork

MAX_NAMES = 1 << 18        # edge names deduplicated; later new names are written as they come
MAX_WARNINGS = 200


class Capture(Kinds, Chunks, Edges):
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
        self.limited = set()     # ids of deque and its subclasses: their maxlens go in LIMITS
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
        self.per_type = {}       # id(type) -> objects written
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

    # -- the interpreter's own references ---------------------------------------

    def class_counts(self):
        """{id(class): objects written} for the classes made at run time
        (heap types): what run's watch of growth compares from one
        snapshot to the next."""
        static = set(self.static_types)
        return {t: n for t, n in self.per_type.items() if t not in static}

    def read_interp(self):
        """Reads the words of the interpreter state (before the walk: its
        references are matched with the objects as they are written)."""
        try:
            got = _interp.interp_words()
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
        fields = _interp.INTERP[2]
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
