"""whole.py SNAP: objects of every kind, kept alive, then a snapshot; it
prints their ids by name, whole_ for those whose state the snapshot
shows entirely (and so may be compared by value), other_ for the rest."""
import collections
import datetime
import json
import sys
import threading
import types

import heapscope


class Plain:
    def __init__(self):
        self.a = 1
        self.b = "x"


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = [1]
        self.b = 2


class ListOf(list):
    pass


class IntOf(int):
    pass


class SetOf(set):
    def __init__(self, items):
        super().__init__(items)
        self.label = "s"


class Stamp(datetime.date):
    pass


objs = {
    "whole_plain": Plain(), "whole_slotted": Slotted(), "whole_list": [1, "two"], "whole_tuple": (1, "two"),
    "whole_dict": {"k": [3]}, "whole_set": {1, 2}, "whole_frozenset": frozenset({3, 4}),
    "whole_str": "".join(["te", "xt"]), "whole_bytes": bytes([1, 2, 3]), "whole_int": 12345, "whole_float": 1.5,
    "whole_true": True, "whole_ordered": collections.OrderedDict(a=1), "whole_listof": ListOf([1]), "whole_setof": SetOf([1]),
    "whole_namespace": types.SimpleNamespace(x=1), "whole_function": (lambda: 1),
    "other_class": Plain, "other_module": json, "other_date": datetime.date(2020, 1, 2),
    "other_lock": threading.Lock(), "other_bigint": 10 ** 40, "other_intof": IntOf(7), "other_stamp": Stamp(2020, 1, 2),
}
heapscope.snapshot(sys.argv[1])
print(json.dumps({k: id(v) for k, v in objs.items()}))
