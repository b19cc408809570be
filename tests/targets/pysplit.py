# pysplit.py - hot_a and hot_b in a 3:1 CPU split, through a known chain
# (main -> run -> level1 -> hot_a), for tests/python-frames.test.
# Usage: pysplit.py SECONDS [READY_FILE]
# Prints "split A B" at the end: the CPU seconds (time.thread_time) each
# of hot_a and hot_b used, the script's own measure of the split.  The
# two have the same body on purpose: the split is the call counts'.
import sys
import time


def hot_a(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def hot_b(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def level1(acc):
    t0 = time.thread_time()
    hot_a(300000)
    t1 = time.thread_time()
    hot_b(100000)
    t2 = time.thread_time()
    acc[0] += t1 - t0
    acc[1] += t2 - t1


def run(seconds, ready):
    acc = [0.0, 0.0]
    if ready:
        open(ready, "w").close()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        level1(acc)
    return acc


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    ready = sys.argv[2] if len(sys.argv) > 2 else None
    a, b = run(seconds, ready)
    print("split %.6f %.6f" % (a, b), flush=True)


main()
