"""nativekeep.py SNAP: hands 60 numpy arrays of 1 MiB (float64, 512 x
256) to the Cython extension keeper (nativekeep/keeper.pyx, built by the
test), which keeps a memoryview of each in a C struct for good; the
program drops its own references. It prints what numpy says of the
arrays, then takes a snapshot."""
import json
import sys

import numpy as np

import heapscope
import keeper

shape = (512, 256)
for i in range(60):
    keeper.keep(np.full(shape, float(i)))
a = np.zeros(shape)
print(json.dumps({"arrays": 60, "nbytes": a.nbytes, "size": sys.getsizeof(a),
                  "dtype": str(a.dtype), "shape": list(a.shape)}))
del a
heapscope.snapshot(sys.argv[1])
