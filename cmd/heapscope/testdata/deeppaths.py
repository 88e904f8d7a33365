"""Two lists that grow in every snapshot, held by long paths that are the
same but for one step near the root (.alpha and .beta), as with plugin
modules that each keep a registry: __main__ -> .alpha module -> .child
module -> ... -> .items list. It writes three snapshots into the directory
given as its argument."""
import os
import sys
import types

import heapscope


class Item:
    pass


def chain(name):
    top = m = types.ModuleType(name)
    for k in range(3):
        m.child = types.ModuleType("%s%d" % (name, k))
        m = m.child
    m.items = []
    return top


def items(m):
    while hasattr(m, "child"):
        m = m.child
    return m.items


alpha = chain("alpha")
beta = chain("beta")

for i in range(3):
    for _ in range(10 * (i + 1)):
        items(alpha).append(Item())
        items(beta).append(Item())
    heapscope.snapshot(os.path.join(sys.argv[1], "%d.pysnap" % i))
