"""A small reference reader of .pysnap files, used by the agent's own
checks (the real reader is Go's pysnap package). Usage:
    python3 readsnap.py FILE [summary|objects|warnings]"""
import json
import struct
import sys
import zlib
from array import array


def read(path):
    data = open(path, "rb").read()
    assert data[:8] == b"HSPYSNAP", "magic"
    major, minor, flags = struct.unpack_from("<HHI", data, 8)
    assert major == 1
    pos = 16
    strings = [""]
    types = []
    objs = {}
    roots = []
    values = {}
    digests = {}
    omitted = set()
    warnings = []
    meta = None
    nsec = 0
    tot_obj = tot_edge = 0
    kinds = []
    while True:
        kind, count, length = struct.unpack_from("<IIQ", data, pos)
        body = data[pos + 16:pos + 16 + length]
        assert len(body) == length, "truncated"
        if kind == 0x7FFFFFFF:
            no, nedge, ns, crc, magic = struct.unpack("<QQQI4s", body)
            assert magic == b"HEND"
            assert crc == zlib.crc32(data[:pos]) & 0xFFFFFFFF, "crc"
            assert ns == nsec, (ns, nsec)
            assert no == tot_obj and nedge == tot_edge
            assert pos + 16 + length == len(data)
            break
        nsec += 1
        kinds.append(kind)
        p = 0
        if kind == 1:
            meta = json.loads(body)
        elif kind in (2, 7):
            for _ in range(count):
                (n,) = struct.unpack_from("<I", body, p)
                s = body[p + 4:p + 4 + n].decode("utf-8")
                p += 4 + n
                (strings if kind == 2 else warnings).append(s)
            assert p == length
        elif kind == 3:
            for i in range(count):
                a, s = struct.unpack_from("<QI", body, 12 * i)
                assert s < len(strings)
                types.append((a, strings[s]))
            assert 12 * count == length
        elif kind == 4:
            n = count

            def col(code, cnt, pad):
                nonlocal p
                a = array(code)
                a.frombytes(body[p:p + a.itemsize * cnt])
                p += a.itemsize * cnt
                if pad:
                    p += (-(a.itemsize * cnt)) & 7
                return a
            addr = col("Q", n, False)
            typ = col("I", n, False)
            size = col("Q", n, False)
            rc = col("Q", n, False)
            fl = col("B", n, True)
            ne = col("I", n, True)
            m = sum(ne)
            tg = col("Q", m, False)
            lb = col("I", m, True)
            assert p == length, (p, length)
            e = 0
            for i in range(n):
                assert addr[i] not in objs, "duplicate object 0x%x %s" % (addr[i], types[typ[i]][1])
                objs[addr[i]] = (types[typ[i]][1], size[i], rc[i], fl[i],
                                 list(zip(tg[e:e + ne[i]], lb[e:e + ne[i]])))
                e += ne[i]
            tot_obj += n
            tot_edge += m
        elif kind == 5:
            a = array("Q"); a.frombytes(body[:8 * count]); p = 8 * count
            k = body[p:p + count]; p += count + ((-count) & 7)
            nm = array("I"); nm.frombytes(body[p:p + 4 * count])
            for i in range(count):
                roots.append((a[i], k[i], strings[nm[i]]))
        elif kind == 6:
            a = array("Q"); a.frombytes(body[:8 * count]); p = 8 * count
            for i in range(count):
                (n,) = struct.unpack_from("<I", body, p)
                values[a[i]] = body[p + 4:p + 4 + n].decode("utf-8")
                p += 4 + n
            assert p == length
        elif kind == 9:
            a = array("Q"); a.frombytes(body[:8 * count])
            omitted.update(a)
        elif kind == 8:
            a = array("Q"); a.frombytes(body[:8 * count])
            d = array("Q"); d.frombytes(body[8 * count:16 * count])
            digests.update(zip(a, d))
        pos += 16 + length
    return dict(flags=flags, strings=strings, types=types, objs=objs, roots=roots,
                values=values, digests=digests, omitted=omitted, warnings=warnings, meta=meta, kinds=kinds)


def label(snap, l):
    kind = ["strong", "weak", "internal", "shortcut"][l >> 30]
    if l & (1 << 29):
        return kind, "[%d]" % (l & ((1 << 29) - 1))
    return kind, snap["strings"][l & ((1 << 29) - 1)]


if __name__ == "__main__":
    s = read(sys.argv[1])
    from collections import Counter
    c = Counter(o[0] for o in s["objs"].values())
    print("objects", len(s["objs"]), "edges", sum(len(o[4]) for o in s["objs"].values()),
          "roots", len(s["roots"]), "values", len(s["values"]), "warnings", len(s["warnings"]))
    print(c.most_common(15))
    for w in s["warnings"][:20]:
        print("W", w)
    print(s["meta"])
    missing = sum(1 for o in s["objs"].values() for t, l in o[4] if t not in s["objs"])
    print("dangling edges", missing)
