import os, sys
with open(sys.argv[1] if len(sys.argv) > 1 else "/dev/null", "a") as f:
    f.write("the program's array.py ran\n")
