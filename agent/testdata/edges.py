# (e) Edge names.
import argparse
import json
import sys
import weakref

import heapscope


class Obj:
    pass


class Slot:
    __slots__ = ("a",)


class Holder:
    def __init__(self):
        self.payload = Obj()
        self.other = None


holder = Holder()
# Attributes set from outside the class (no method names them): 3.11+
# keeps them inline, named only in the class's shared keys.
loose = Obj()
loose.attached = Obj()
args = argparse.ArgumentParser().parse_args([])
setattr(args, "chosen", Obj())
cache = {}
cache["k"] = Obj()
items = [Obj(), Obj(), Obj()]


def make():
    captured = Obj()

    def fn():
        return captured
    return fn


closure = make()
wr_target = Obj()
wr = weakref.ref(wr_target)
wvd = weakref.WeakValueDictionary()
wvd_value = Obj()
wvd["v"] = wvd_value
wkd = weakref.WeakKeyDictionary()
wkd_key = Obj()
wkd[wkd_key] = 1
slot = Slot()
slot.a = Obj()
bm = Obj()
Obj.meth = lambda self: None
bound = bm.meth
wrapper = Obj.__init__.__get__(bm)
tup = (Obj(), Obj())


def run():
    local_obj = Obj()
    heapscope.snapshot(sys.argv[1])
    return id(local_obj)


out = {"local": run(), "holder": id(holder), "payload": id(holder.payload),
       "loose": id(loose), "attached": id(loose.attached), "args": id(args), "chosen": id(args.chosen), "cache": id(cache), "cache_k": id(cache["k"]),
       "items": id(items), "item1": id(items[1]), "closure": id(closure),
       "closure_tuple": id(closure.__closure__), "cell": id(closure.__closure__[0]),
       "captured": id(closure.__closure__[0].cell_contents),
       "wr": id(wr), "wr_target": id(wr_target), "wvd_value": id(wvd_value),
       "wkd_key": id(wkd_key), "slot": id(slot), "slot_a": id(slot.a),
       "bound": id(bound), "bm": id(bm), "wrapper": id(wrapper), "tup": id(tup), "tup1": id(tup[1]),
       "main_dict": id(sys.modules["__main__"].__dict__), "main": id(sys.modules["__main__"])}
print(json.dumps(out))
