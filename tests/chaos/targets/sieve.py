# sieve.py - a Python target for tests/chaos/runtime-python.test.
#
#   python3 sieve.py SECONDS
#
# Prints "ready", then sums the primes below 200000 with a sieve written
# as plain interpreter loops, round after round, for SECONDS seconds or
# until a file "stop" appears in the current directory; every round must
# give 1709600813.  A second thread does the same.
# Prints "ok ROUNDS rounds" (exit 0) or "WRONG ..." (exit 1).
import os
import sys
import threading
import time

WANT = 1709600813


def sum_primes(n):
    composite = [False] * n
    total = 0
    for i in range(2, n):
        if composite[i]:
            continue
        total += i
        for j in range(i * i, n, i):
            composite[j] = True
    return total


def work(end, out):
    rounds = wrong = 0
    while True:
        if sum_primes(200000) != WANT:
            wrong += 1
        rounds += 1
        if time.monotonic() >= end or os.path.exists("stop"):
            break
    out.append((rounds, wrong))


def main():
    end = time.monotonic() + float(sys.argv[1])
    results = []
    print("ready", flush=True)
    helper = threading.Thread(target=work, args=(end, results))
    helper.start()
    work(end, results)
    helper.join()
    if len(results) != 2 or any(wrong for _, wrong in results):
        print("WRONG: %r" % results)
        return 1
    print("ok %d rounds" % sum(rounds for rounds, _ in results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
