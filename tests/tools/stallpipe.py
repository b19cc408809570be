#!/usr/bin/env python3
"""stallpipe.py FIFO SECS OUT - a reader that stops reading for SECS
seconds, then reads again (tests/top-blocked.test).

Opens FIFO read-write (so the open does not wait), fills the pipe until a
write would block and prints "ready": whoever writes into FIFO then blocks
in its write, as into a pipe whose reader stopped reading.  After SECS
seconds it prints "reading" and reads everything, the filler left out,
into OUT, until the file OUT.done exists and nothing came for 0.2 s (300
s at most).
"""
import os
import select
import sys
import time

fifo, secs, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
filler = 0
try:
    for _ in range(1 << 16):
        filler += os.write(fd, b"\0" * 4096)
except BlockingIOError:
    pass
print("ready", flush=True)
time.sleep(secs)
print("reading", flush=True)
end = time.monotonic() + 300
with open(out, "wb") as f:
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            if os.path.exists(out + ".done"):
                break
            continue
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            continue
        skip = min(filler, len(data))
        filler -= skip
        f.write(data[skip:])
        f.flush()
