# (f) values=False writes no VALUES section and no str content.
import json
import sys

import heapscope

secret = "-".join(["SECRET", "VALUE", "9f8e7d6c"])
secret_bytes = b"-".join([b"BYTES", b"SECRET", b"1a2b3c"])
holder = {"x": secret, "y": secret_bytes}
print(json.dumps({"with": heapscope.snapshot(sys.argv[1]),
                  "without": heapscope.snapshot(sys.argv[2], values=False),
                  "secret": secret, "secret_bytes": secret_bytes.decode(), "addr": id(secret)}))
