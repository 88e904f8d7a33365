"""Writer for the .pysnap format (docs/pysnap-format.md), version 1.3.

Private module of the heapscope agent. Everything here is standard library.
The writer streams sections to a file object and keeps an incremental
CRC-32 of every byte written before END.
"""

import struct
import sys
import zlib
from array import array
from itertools import chain

MAGIC = b"HSPYSNAP"
MAJOR = 1
MINOR = 3
FLAG_NO_VALUES = 1

META = 1
STRINGS = 2
TYPES = 3
OBJECTS = 4
ROOTS = 5
VALUES = 6
WARNINGS = 7
DIGESTS = 8
SITES = 9
OBJECT_SITES = 10
OMITTED = 11
LIMITS = 12
END = 0x7FFFFFFF

# Edge label bits (heap.Label).
STRONG = 0
WEAK = 1 << 30
INTERNAL = 2 << 30
INDEX = 1 << 29
MAX_INDEX = INDEX - 1

# Root kinds (heap.RootKind).
ROOT_OTHER = 0
ROOT_MODULE = 1
ROOT_STACK = 2
ROOT_THREAD = 3
ROOT_GLOBAL = 4
ROOT_VM = 7

# Object flags.
F_TRACKED = 1
F_IMMORTAL = 2
F_OPAQUE = 4
F_SYNTHETIC = 8
F_INTERNED = 16
F_WHOLE = 32      # the snapshot shows all of the object's state (1.2)


def _typecode(size):
    for c in "BHILQ":
        if array(c).itemsize == size:
            return c
    raise ImportError("no array type code of %d bytes" % size)


U32 = _typecode(4)
U64 = _typecode(8)
_SWAP = sys.byteorder != "little"

# Compiled once: struct.pack(fmt, ...) would add to the struct module's
# format cache during a capture (a change to the heap being walked).
_hdr = struct.Struct("<HHI")
_type_rec = struct.Struct("<QI")
_sec = struct.Struct("<IIQ")
_u32 = struct.Struct("<I")
_pack_u32 = _u32.pack
_end = struct.Struct("<QQQI4s")


def u32s(it=()):
    return array(U32, it)


def u64s(it=()):
    return array(U64, it)


def pad8(n):
    return (-n) & 7


class Writer:
    """Streams sections to f (a binary file) and tracks the CRC."""

    def __init__(self, f, values):
        self.f = f
        self.crc = 0
        self.nsections = 0
        self.nobjects = 0
        self.nedges = 0
        self._write(MAGIC + _hdr.pack(MAJOR, MINOR, 0 if values else FLAG_NO_VALUES))

    def _write(self, b):
        self.f.write(b)
        self.crc = zlib.crc32(b, self.crc)

    def _col(self, a):
        # a: array; written little-endian.
        if _SWAP:
            a = array(a.typecode, a)
            a.byteswap()
        if len(a):
            self._write(a)

    def _pad(self, n):
        p = pad8(n)
        if p:
            self._write(b"\0" * p)

    def section(self, kind, count, parts):
        """Writes a section whose payload is the concatenation of parts
        (bytes-like objects or arrays)."""
        length = 0
        for p in parts:
            length += memoryview(p).nbytes
        self._write(_sec.pack(kind, count, length))
        for p in parts:
            if isinstance(p, array):
                self._col(p)
            elif len(p):
                self._write(p)
        self.nsections += 1

    def blobs(self, kind, items):
        """A section of count x (u32 length, bytes)."""
        if not items:
            return
        self.section(kind, len(items), [b"".join(chain.from_iterable(
            zip(map(_pack_u32, map(len, items)), items)))])

    def blob_section(self, kind, count, body):
        """A section of count (u32 length, bytes) records already joined."""
        if count:
            self.section(kind, count, [body])

    def strings(self, encoded):
        self.blobs(STRINGS, encoded)

    def types(self, addrs, names):
        if not addrs:
            return
        self.section(TYPES, len(addrs), [b"".join(map(_type_rec.pack, addrs, names))])

    def objects(self, addr, typ, size, rc, flags, nedges, targets, labels):
        n = len(addr)
        m = len(targets)
        fl = bytes(flags) if not isinstance(flags, (bytes, bytearray)) else flags
        parts = [addr, typ, size, rc, fl, b"\0" * pad8(len(fl)), nedges,
                 b"\0" * pad8(4 * n), targets, labels, b"\0" * pad8(4 * m)]
        self.section(OBJECTS, n, parts)
        self.nobjects += n
        self.nedges += m

    def roots(self, addr, kinds, names):
        n = len(addr)
        if not n:
            return
        kb = bytes(kinds)
        self.section(ROOTS, n, [u64s(addr), kb, b"\0" * pad8(n), u32s(names), b"\0" * pad8(4 * n)])

    def values(self, addr, encoded):
        n = len(addr)
        if not n:
            return
        body = b"".join(chain.from_iterable(zip(map(_pack_u32, map(len, encoded)), encoded)))
        self.section(VALUES, n, [addr, body])

    def values_blob(self, addr, body):
        """A VALUES section whose (u32 length, bytes) records are already
        joined in body."""
        n = len(addr)
        if n:
            self.section(VALUES, n, [addr, body])

    def omitted(self, addr):
        """An OMITTED section: addresses of objects left out on purpose."""
        if len(addr):
            self.section(OMITTED, len(addr), [addr])

    def digests(self, addr, dig):
        if len(addr):
            self.section(DIGESTS, len(addr), [addr, dig])

    def limits(self, addr, limit):
        """A LIMITS section: the most items each object at addr can hold
        (a deque's maxlen)."""
        if len(addr):
            self.section(LIMITS, len(addr), [addr, limit])

    def sites(self, parent, file, function, line):
        """Appends len(parent) sites to the site table (columns of u32)."""
        if len(parent):
            self.section(SITES, len(parent), [parent, file, function, line])

    def object_sites(self, addr, site):
        """Where the objects at addr were allocated."""
        n = len(addr)
        if n:
            self.section(OBJECT_SITES, n, [addr, site, b"\0" * pad8(4 * n)])

    def end(self):
        crc = self.crc & 0xFFFFFFFF
        hdr = _sec.pack(END, 0, 32)
        self.f.write(hdr)
        self.f.write(_end.pack(self.nobjects, self.nedges, self.nsections, crc, b"HEND"))
