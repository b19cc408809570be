#!/usr/bin/env python3
"""fullpipe.py FIFO - a reader that never reads (tests/top-stuck.test).

Opens FIFO read-write (so it is a reader and a writer, and the open does
not wait), fills the pipe until a write would block, prints "ready" and
sleeps: whoever opens FIFO for writing then blocks in its first write,
as into a pipe whose reader stopped reading.  Killed by the test.
"""
import os
import sys
import time

fd = os.open(sys.argv[1], os.O_RDWR | os.O_NONBLOCK)
try:
    for _ in range(1 << 16):
        os.write(fd, b"x" * 4096)
except BlockingIOError:
    pass
print("ready", flush=True)
time.sleep(600)
