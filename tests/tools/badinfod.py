#!/usr/bin/python3
"""badinfod.py - a debuginfod server that misbehaves, for debuginfod.test.

    badinfod.py MODE PORTFILE [FILE [BUILDID]]

Listens on 127.0.0.1 only, on a port the kernel picks, written to
PORTFILE once it listens.  Every request, whatever its build ID, gets:
  silent  nothing: the connection stays open, no byte is ever sent
  slow    FILE's headers, then one byte every half second
  file    FILE whole (another program's debug file, a truncated one...)
  huge    headers announcing 100 GB, then zeros, slowly
With BUILDID, a request for any other build ID gets 404 (not found), as a
real server answers for files it does not have.  Runs until killed (the test kills it by PID); each connection is a
thread, each bounded to 10 minutes.
"""
import os
import socket
import sys
import threading
import time


def answer(conn, mode, data, want):
    conn.settimeout(600)
    try:
        req = b""
        while b"\r\n\r\n" not in req and len(req) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            req += chunk
        if want and ("/buildid/%s/" % want).encode() not in req:
            conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            return
        if mode == "silent":
            time.sleep(600)
            return
        size = 100 * 10**9 if mode == "huge" else len(data)
        head = ("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                "Content-Length: %d\r\nConnection: close\r\n\r\n" % size)
        conn.sendall(head.encode())
        if mode == "file":
            conn.sendall(data)
            return
        end = time.monotonic() + 600
        i = 0
        while time.monotonic() < end:
            conn.sendall(data[i:i + 1] if mode == "slow" else b"\0" * 4096)
            i += 1
            time.sleep(0.5)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    data = b""
    want = sys.argv[4] if len(sys.argv) > 4 else ""
    if len(sys.argv) > 3:
        with open(sys.argv[3], "rb") as f:
            data = f.read()
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(tmp, portfile)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=answer, args=(conn, mode, data, want),
                         daemon=True).start()


if __name__ == "__main__":
    main()
