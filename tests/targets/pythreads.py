# pythreads.py - two Python threads, for tests/python-frames.test: one
# runs work_a (pure Python), the other work_b, which calls zlib.compress
# (C: zlib's deflate between Python frames); the main thread waits.
# Usage: pythreads.py SECONDS
import random
import sys
import threading
import time
import zlib


def work_a(end):
    x = 0
    while time.monotonic() < end:
        for i in range(10000):
            x += i
    return x


def work_b(end):
    # Not repetitive: deflate works (without the GIL) on every byte.
    data = random.Random(1).randbytes(1 << 20)
    while time.monotonic() < end:
        zlib.compress(data, 9)


def main():
    end = time.monotonic() + float(sys.argv[1])
    ts = [threading.Thread(target=f, args=(end,)) for f in (work_a, work_b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("done", flush=True)


main()
