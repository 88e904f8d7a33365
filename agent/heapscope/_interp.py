"""The references of CPython's interpreter state that no object holds,
read directly with ctypes. INTERP is the struct's address, its number of
words read, the names of its fields by offset and the offsets left out,
found and checked at import (None where it cannot be read: see below);
interp_words() reads its words at capture time, which the capture writes
as a synthetic object (Capture.read_interp, write_interp).
"""

import sys
from itertools import repeat
from operator import add

from ._native import ctypes, _V, _P, _value, _vp_at, _raw

# -- the interpreter state -----------------------------------------------------
#
# The interpreter's own C struct (PyInterpreterState) holds objects no
# object refers to: the codec registry, the warnings filters, gc.garbage,
# the modules by index, the type attribute cache, the AST singletons, and
# on 3.12+ the dicts and subclass records of the static builtin types.
# The agent reads the struct's words (the size of a release build of each
# version, less a margin: a struct of a debug build is larger); a word that
# is the address of an object the snapshot lists is a reference of the
# interpreter's (a synthetic object, "(interpreter state)", holds them).
# The struct is found with PyInterpreterState_Get and checked at import:
# the words at the offsets of sys.modules, sys.__dict__ and the builtins
# dict must be theirs. Offsets and sizes of release builds on 64-bit
# platforms; elsewhere (32-bit, free-threaded) nothing is read. Left out:
# the free lists (3.10+: they keep pointers to objects freed, whose memory
# a live object may have taken since) and the values of the type
# attribute cache (3.10+: borrowed, possibly stale; its names are held).

_INTERP = {
    (3, 9): (5656, {856: "modules", 864: "modules_by_index", 872: "sysdict", 880: "builtins", 888: "importlib",
                    824: "gc.garbage", 832: "gc.callbacks", 912: "codec_search_path", 920: "codec_search_cache",
                    928: "codec_error_registry", 1376: "dict", 1384: "builtins_copy", 1392: "import_func",
                    3456: "before_forkers", 3464: "after_forkers_parent", 3472: "after_forkers_child",
                    3504: "warnings.filters", 3512: "warnings.once_registry", 3520: "warnings.default_action",
                    3536: "audit_hooks"}, (), None, ()),
    (3, 10): (113528, {856: "modules", 864: "modules_by_index", 872: "sysdict", 880: "builtins", 888: "importlib",
                       824: "gc.garbage", 832: "gc.callbacks", 912: "codec_search_path", 920: "codec_search_cache",
                       928: "codec_error_registry", 1344: "dict", 1352: "builtins_copy", 1360: "import_func",
                       3424: "before_forkers", 3432: "after_forkers_parent", 3440: "after_forkers_child",
                       3456: "warnings.filters", 3464: "warnings.once_registry", 3472: "warnings.default_action",
                       3504: "audit_hooks"},
              ((9776, 9792), (9800, 10040), (10040, 10688), (10688, 11984), (12000, 13296), (13296, 13312),
               (13320, 13328), (11984, 12000)),
              (15216, 4096, 24, 16), ((13336, 15216, "ast"),)),
    (3, 11): (107752, {888: "modules", 896: "modules_by_index", 904: "sysdict", 912: "builtins", 920: "importlib",
                       856: "gc.garbage", 864: "gc.callbacks", 936: "codec_search_path", 944: "codec_search_cache",
                       952: "codec_error_registry", 1400: "dict", 1408: "builtins_copy", 1416: "import_func",
                       3480: "before_forkers", 3488: "after_forkers_parent", 3496: "after_forkers_child",
                       3504: "warnings.filters", 3512: "warnings.once_registry", 3520: "warnings.default_action",
                       3552: "audit_hooks"},
              ((3608, 3624), (3632, 3872), (3872, 4520), (4520, 5816), (5816, 7112), (7112, 7128), (7136, 7144)),
              (9056, 4096, 24, 16), ((7160, 9056, "ast"),)),
    (3, 12): (383552, {944: "modules", 952: "modules_by_index", 352: "sysdict", 360: "builtins", 960: "importlib",
                       320: "gc.garbage", 328: "gc.callbacks", 1248: "codec_search_path", 1256: "codec_search_cache",
                       1264: "codec_error_registry", 1720: "dict", 1736: "builtins_copy", 984: "import_func",
                       3872: "before_forkers", 3880: "after_forkers_parent", 3888: "after_forkers_child",
                       3896: "warnings.filters", 3904: "warnings.once_registry", 3912: "warnings.default_action",
                       267208: "audit_hooks"},
              ((267408, 267424), (269832, 270072), (270072, 270720), (270720, 272088), (272088, 273384),
               (273384, 273400), (273408, 273416), (269816, 269820), (267432, 269816)),
              (275392, 4096, 24, 16), ((273432, 275384, "ast"), (373704, 381704, "static types"))),
    (3, 13): (194968, {7656: "modules", 7664: "modules_by_index", 7640: "sysdict", 7648: "builtins",
                       7672: "importlib", 7608: "gc.garbage", 7616: "gc.callbacks", 7960: "codec_search_path",
                       7968: "codec_search_cache", 7976: "codec_error_registry", 8448: "dict",
                       8464: "builtins_copy", 7696: "import_func", 10632: "before_forkers",
                       10640: "after_forkers_parent", 10648: "after_forkers_child", 10656: "warnings.filters",
                       10664: "warnings.once_registry", 10672: "warnings.default_action", 10808: "audit_hooks"},
              ((10952, 14488), (82648, 82656), (17000, 82544), (14560, 17000)),
              (84656, 4096, 24, 16), ((82696, 84648, "ast"), (182960, 192568, "static types"))),
}
_INTERP_MARGIN = 256
INTERP = None    # (address, number of words, {offset: name}, offsets left out)


def _find_interp():
    if _P != 8 or "t" in getattr(sys, "abiflags", "") or _V not in _INTERP:
        return None
    size, fields, ranges, cache, regions = _INTERP[_V]
    get = ctypes.pythonapi.PyInterpreterState_Get
    get.restype = ctypes.c_void_p
    get.argtypes = ()
    base = get()
    if not base:
        return None
    import builtins
    names = {v: k for k, v in fields.items()}
    want = {names["modules"]: id(sys.modules), names["sysdict"]: id(sys.__dict__),
            names["builtins"]: id(builtins.__dict__)}
    for off, i in want.items():
        if _raw(base + off) != i:
            return None
    skip = set()
    for lo, hi in ranges:
        skip.update(range(lo, hi, _P))
    names = dict(fields)
    for lo, hi, name in regions:
        names.update(zip(range(lo, hi, _P), repeat(name)))
    if cache is not None:
        start, n, stride, value = cache
        skip.update(range(start + value, start + n * stride, stride))
        names.update(zip(range(start + value - _P, start + n * stride, stride), repeat("type_cache")))
    return base, (size - _INTERP_MARGIN) // _P, names, frozenset(skip)


def interp_words():
    """The interpreter state's address and [(word, offset)] for its
    non-NULL, aligned words that may hold a reference; None where it
    cannot be read."""
    if INTERP is None:
        return None
    base, n, _, skip = INTERP
    offs = range(0, n * _P, _P)
    words = list(map(_value, map(_vp_at, map(add, repeat(base), offs))))
    return base, [(w, o) for w, o in zip(words, offs) if w and not w & 7 and o not in skip]


if ctypes is not None:
    try:
        INTERP = _find_interp()
    except Exception:
        pass
