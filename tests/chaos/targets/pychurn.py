# pychurn.py - a CPython process whose threads and processes come and go
# while ptprof samples it, for tests/chaos/python-churn.test (issue 16).
# Usage: pychurn.py ROUNDS
# Each round the main thread:
#  - starts WORKERS threading.Thread workers, each running the chain
#    worker_outer -> worker_mid -> worker_leaf (a bounded sum), and joins
#    them;
#  - forks a child that runs child_outer -> child_leaf (a bounded sum),
#    writes its sum and leaves with os._exit (status 3: a status the
#    parent checks);
#  - compiles and runs a function of its own, gen_R (R the round) in
#    "pychurn_gen.py" at line R + 1, and drops it: the code objects of
#    one round are freed and their addresses reused by the next round's
#    (a reader that caches code objects by address names gen_R by an
#    earlier round's name);
#  - checks every sum and prints one line per round.
# Before the rounds it starts a native thread through ctypes
# (pthread_create with libc's sleep as the start routine): a thread with
# no Python thread state, blocked in clock_nanosleep, started like a C
# extension's.  It prints "native started" once it is there.  The
# program then exits by itself (the native thread
# still sleeping).  Everything is bounded by ROUNDS, never by time: the
# output is the same however slowly it runs.
import ctypes
import os
import sys
import threading

WORKERS = 4
WORK = 400000
CHILD_WORK = 300000
GEN_WORK = 300000
GEN_SRC = """def gen_%d(n):
    x = 0
    for i in range(n):
        x += i + 1
    return x
"""


def worker_leaf(n):
    x = 0
    for i in range(n):
        x += i
    return x


def worker_mid(n):
    return worker_leaf(n)


def worker_outer(n, out, k):
    out[k] = worker_mid(n)


def child_leaf(n):
    x = 0
    for i in range(n):
        x += i * 2
    return x


def child_outer(n):
    return child_leaf(n)


def start_native_thread(secs):
    libc = ctypes.CDLL(None, use_errno=True)
    tid = ctypes.c_ulong()
    start = ctypes.cast(libc.sleep, ctypes.c_void_p)
    rc = libc.pthread_create(ctypes.byref(tid), None, start,
                             ctypes.c_void_p(secs))
    if rc != 0:
        raise OSError(rc, "pthread_create")
    libc.pthread_detach(tid)


def one_round(r):
    out = [None] * WORKERS
    ts = [threading.Thread(target=worker_outer, args=(WORK, out, k),
                           name="worker-%d-%d" % (r, k))
          for k in range(WORKERS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    want = WORK * (WORK - 1) // 2
    if out != [want] * WORKERS:
        print("round %d: worker sums %r, expected %d" % (r, out, want))
        sys.exit(1)
    # No cycle (the function's globals hold it): freed at the del,
    # not at some later collection.
    g = {}
    exec(compile("\n" * r + GEN_SRC % r, "pychurn_gen.py", "exec"), g)
    f = g.pop("gen_%d" % r)
    g.clear()
    s = f(GEN_WORK)
    del f
    if s != GEN_WORK * (GEN_WORK + 1) // 2:
        print("round %d: gen sum %d" % (r, s))
        sys.exit(1)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        s = child_outer(CHILD_WORK)
        os.write(1, b"child %d sum %d\n" % (r, s))
        os._exit(3)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 3:
        print("round %d: child status %#x, expected exit 3" % (r, status))
        sys.exit(1)
    print("round %d workers %d sum %d" % (r, WORKERS, want * WORKERS),
          flush=True)


def main():
    rounds = int(sys.argv[1])
    start_native_thread(3600)
    print("native started", flush=True)
    for r in range(rounds):
        one_round(r)
    print("ok", flush=True)


main()
