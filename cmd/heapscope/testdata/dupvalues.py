"""dupvalues.py SNAP: 50 equal strings that hold a newline and a tab,
each made at run time (not one shared constant), then a snapshot."""
import sys

import heapscope

parts = ["first line", "second\tline"]
copies = ["\n".join(parts) for _ in range(50)]
heapscope.snapshot(sys.argv[1])
