# values=False writes none of the program's data. Secrets sit in a dict
# key (str and int), a key of an OrderedDict, argv (the Go test passes
# one), the environment (the Go test sets one), a str, bytes, an int and a
# thread's name. Usage: userdata.py DIR ARGV_SECRET
import collections
import json
import os
import sys
import threading

import heapscope


def fresh(*parts):
    return "".join(parts)   # made at run time: not a constant of this file


secrets = {
    "str_key": fresh("KEYSECRET", "-", "71c3"),
    "od_key": fresh("ODKEYSECRET", "-", "9be0"),
    "str": fresh("STRSECRET", "-", "44d1"),
    "bytes": fresh("BYTESSECRET", "-", "e5a0"),
    "thread": fresh("THREADSECRET", "-", "08fa"),
    "int_key": str(918273645546372 * 7),
    "int": str(7306198465 * 1009),
}


class Account:
    def __init__(self):
        self.tokens = {secrets["str_key"]: "t"}   # a user dict inside an instance


table = {secrets["str_key"]: 1, int(secrets["int_key"]): "by number"}
od = collections.OrderedDict([(secrets["od_key"], 2)])
account = Account()
value = fresh(secrets["str"])
blob = secrets["bytes"].encode()
number = int(secrets["int"])
stop = threading.Event()
th = threading.Thread(target=stop.wait, name=secrets["thread"])
th.start()
d = sys.argv[1]
out = {
    "with": heapscope.snapshot(os.path.join(d, "with.pysnap")),
    "without": heapscope.snapshot(os.path.join(d, "without.pysnap"), values=False),
    "census": heapscope.snapshot(os.path.join(d, "census.pysnap"), values=False, edges=False),
    "secrets": secrets,
    "argv": sys.argv[2],
    "hash_randomization": sys.flags.hash_randomization,
}
stop.set()
th.join()
print(json.dumps(out))
