"""structcache.py SNAP | BASELINE TARGET FINAL: a small compiler that lowers records to LLVM
struct types with llvmlite and caches them in a WeakKeyDictionary keyed
by the record. Its call sites pass weakref.proxy(record), which cannot
be a weak key: the lookup raises TypeError, the compiler takes that for
a miss, and builds the same llvmlite.ir.LiteralStructType again for
every function. 15 records, 588 functions: 15 types in the cache, 573
more built again, all kept by the module's functions. It prints what
Python's own equality says of them, then takes a snapshot; given three
paths, it compiles the functions in three rounds of 196 and takes a
snapshot after each, for leaks."""
import gc
import json
import sys
import weakref

from llvmlite import ir

import heapscope

KINDS = {"i8": ir.IntType(8), "i32": ir.IntType(32), "i64": ir.IntType(64),
         "f64": ir.DoubleType(), "f32": ir.FloatType()}


class Record:
    """A record type of the source language."""

    def __init__(self, name, fields):
        self.name = name
        self.fields = fields  # [(field name, kind)]


class Context:
    def __init__(self):
        self._cache = weakref.WeakKeyDictionary()

    def lower(self, kind):
        if kind.endswith("*"):
            return self.lower(kind[:-1]).as_pointer()
        return KINDS[kind]

    def struct_type(self, rec):
        try:
            return self._cache[rec]
        except KeyError:
            pass
        except TypeError:
            # A weak proxy cannot be a key: taken for a miss.
            return self._build(rec)
        t = self._cache[rec] = self._build(rec)
        return t

    def _build(self, rec):
        return ir.LiteralStructType([self.lower(k) for _, k in rec.fields])


def records():
    kinds = list(KINDS)
    out = []
    for i in range(15):
        fields = [("f%d" % j, kinds[(i + j) % len(kinds)] + ("*" if (i * j) % 3 == 1 else ""))
                  for j in range(2 + i % 4)]
        out.append(Record("R%d" % i, fields))
    return out


def compile_all(ctx, module, recs, start, n):
    for k in range(start, start + n):
        rec = recs[k % len(recs)]
        # The first use of each record passes the record; later ones a
        # proxy, as the code generator's helpers do.
        arg = rec if k < len(recs) else weakref.proxy(rec)
        st = ctx.struct_type(arg)
        fnty = ir.FunctionType(ir.VoidType(), [st, ir.IntType(32)])
        fn = ir.Function(module, fnty, name="fn%d" % k)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.ret_void()


def census():
    """What Python itself says of the struct types: how many there are,
    how many distinct by their own __eq__, how many the cache holds."""
    structs = [o for o in gc.get_objects() if type(o) is ir.LiteralStructType]
    distinct = []
    for s in structs:
        if not any(s == d for d in distinct):
            distinct.append(s)
    return {"structs": len(structs), "distinct": len(distinct), "cached": len(ctx._cache)}


ctx = Context()
module = ir.Module(name="app")
recs = records()
paths = sys.argv[1:]
if len(paths) == 3:
    for r, path in enumerate(paths):
        compile_all(ctx, module, recs, 196 * r, 196)
        text = str(module)
        heapscope.snapshot(path)
    print(json.dumps(census()))
else:
    compile_all(ctx, module, recs, 0, 588)
    text = str(module)
    print(json.dumps(census()))
    heapscope.snapshot(paths[0])
