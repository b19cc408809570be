#!/usr/bin/env python3
"""bgterm.py PIDFILE CMD [ARG...]: run CMD as a background job of a new
terminal with `stty tostop` set, as a shell with job control would.

A pseudo-terminal session is made (pty.fork); its leader, the foreground
process group, sets TOSTOP and starts CMD in a process group of its own,
writes CMD's PID to PIDFILE, and waits for CMD to exit (40 s at most,
then it kills CMD: its own child, by PID).  A write by CMD to the terminal
then stops CMD with SIGTTOU.  The terminal's output is read and dropped.
Exits 0, or 2 on a usage error.
"""
import errno
import os
import pty
import signal
import sys
import termios
import time
import traceback


def leader(pidfile, argv):
    attrs = termios.tcgetattr(0)
    attrs[3] |= termios.TOSTOP
    termios.tcsetattr(0, termios.TCSANOW, attrs)
    child = os.fork()
    if child == 0:
        # The child puts itself in its own group before it execs; the
        # parent's setpgid below only closes the window before that.
        try:
            os.setpgid(0, 0)
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    try:
        os.setpgid(child, child)
    except OSError as e:
        # EACCES: the child has exec'd already (having set its group
        # first); ESRCH: it has exited.  Neither may cost the PID file.
        if e.errno not in (errno.EACCES, errno.ESRCH):
            raise
    with open(pidfile + ".tmp", "w") as f:
        f.write("%d\n" % child)
    os.rename(pidfile + ".tmp", pidfile)
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        pid, _ = os.waitpid(child, os.WNOHANG)
        if pid:
            os._exit(0)
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    os._exit(0)


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: bgterm.py PIDFILE CMD [ARG...]\n")
        sys.exit(2)
    # The leader's stderr is the terminal, whose output is dropped: a
    # failure of its own is written to this copy of ours instead.
    err = os.dup(2)
    pid, fd = pty.fork()
    if pid == 0:
        try:
            leader(sys.argv[1], sys.argv[2:])
        except BaseException:
            os.write(err, ("bgterm.py: " + traceback.format_exc()).encode())
        finally:
            os._exit(1)
    os.close(err)
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline:
        try:
            if not os.read(fd, 4096):
                break
        except OSError:
            break
    os.waitpid(pid, 0)


main()
