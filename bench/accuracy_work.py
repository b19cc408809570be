"""bench/accuracy_work.py - workloads for bench/accuracy.sh.

  accuracy_work.py gen BYTES     deterministic semi-compressible input for xz
                                 on stdout: text-like lines of made-up words
                                 and numbers, with a few random-byte runs
  accuracy_work.py loop SECS     a CPU-bound interpreter loop that mixes
                                 several hot C functions (str methods, dict
                                 lookups, big-integer arithmetic, re, sort);
                                 prints "ready", then runs SECS seconds at
                                 most (a bound: accuracy.sh stops it sooner)
  accuracy_work.py sqldb PATH    a 200000-row SQLite database file with an
                                 index, for the sqlite workload
  accuracy_work.py sqlq SECS     SELECTs over that index on stdout, one
                                 transaction, for SECS seconds at most (a
                                 bound: accuracy.sh stops sqlite3 sooner,
                                 and this then ends on the closed pipe)
  accuracy_work.py noise SHARES N_PT N_A N_B
                                 the overlaps sampling noise alone would
                                 give: "overlap(pt, A) overlap(A, B)", means
                                 over 200 draws of N_PT, N_A and N_B samples
                                 from the pooled profile of a shares.tsv
                                 (key label ptprof perfA perfB)

Uses only the standard library; the same seed gives the same bytes.
"""
import random
import re
import sys
import time


def gen(nbytes):
    r = random.Random(12345)
    syll = ["ka", "lo", "mi", "ne", "ru", "ta", "shi", "pon", "dra", "vel",
            "qu", "ist", "or", "an", "ex"]
    words = ["".join(r.choice(syll) for _ in range(r.randint(1, 4)))
             for _ in range(5000)]
    out = bytearray()
    while len(out) < nbytes:
        if r.random() < 0.03:
            out += r.randbytes(r.randint(64, 2048))
            continue
        fields = []
        for _ in range(r.randint(4, 14)):
            if r.random() < 0.85:
                fields.append(r.choice(words))
            else:
                fields.append(str(r.randint(0, 10 ** r.randint(1, 9))))
        out += " ".join(fields).encode() + b"\n"
    sys.stdout.buffer.write(out[:nbytes])


WORD = re.compile(r"[a-z]+[0-9]*")


def strings(lines):
    n = 0
    for line in lines:
        s = line.replace("a", "4").upper()
        n += len(s.split()) + s.count("KA")
        n += len(",".join(reversed(line.split())))
    return n


def dicts(lines):
    d = {}
    for line in lines:
        for w in line.split():
            d[w] = d.get(w, 0) + 1
    return len(d)


def bigints(k):
    x = 3 ** 4000 + k
    y = 7 ** 3500 + k
    return (x * y) % (2 ** 5000 - 1) + pow(x, 65537, y)


def regex(text):
    return len(WORD.findall(text)) + len(WORD.sub("#", text))


def sorting(r):
    v = [r.random() for _ in range(20000)]
    v.sort()
    return v[0]


def loop(secs):
    r = random.Random(7)
    words = ["".join(r.choice("abcdefghij") for _ in range(r.randint(2, 9)))
             for _ in range(3000)]
    lines = [" ".join(r.choice(words) for _ in range(12)) for _ in range(2000)]
    text = "\n".join(lines)
    print("ready", flush=True)
    end = time.monotonic() + secs
    k = 0
    while time.monotonic() < end:
        # Weighted so that each takes a similar share of the time.
        for _ in range(4):
            strings(lines)
            sorting(r)
        for _ in range(2):
            dicts(lines)
        for _ in range(3):
            bigints(k)
        regex(text)
        k += 1


def sqldb(path):
    import sqlite3
    r = random.Random(99)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT)")
    db.executemany("INSERT INTO t(k, v) VALUES(?, ?)",
                   ((r.randrange(10 ** 9), "x" * r.randrange(20, 80))
                    for _ in range(200000)))
    db.execute("CREATE INDEX tk ON t(k)")
    db.commit()
    db.close()


def sqlq(secs):
    # A small page cache (400 pages of a 15 MB file): most lookups read
    # a page with pread(), a cheap system call between short stretches
    # of user code, the pattern ptrace stops are biased on (ptprof(1),
    # SYSTEM CALL BIAS).
    r = random.Random(7)
    out = sys.stdout
    end = time.monotonic() + secs
    try:
        out.write("PRAGMA cache_size=400;\nBEGIN;\n")
        while time.monotonic() < end:
            lines = []
            for _ in range(1000):
                x = r.randrange(10 ** 9)
                lines.append("SELECT count(*), max(length(v)) FROM t "
                             "WHERE k BETWEEN %d AND %d;\n" % (x, x + 20000))
            out.write("".join(lines))
            out.flush()
        out.write("COMMIT;\n")
        out.flush()
    except BrokenPipeError:
        pass


def overlap(p, q):
    return sum(min(v, q.get(k, 0.0)) for k, v in p.items())


def noise(path, npt, na, nb, sims=200):
    pool = {}
    with open(path) as f:
        for line in f:
            k, _, pt, a, b = line.rstrip("\n").split("\t")
            pool[k] = (float(pt) * npt + float(a) * na + float(b) * nb) / (npt + na + nb)
    keys = list(pool)
    cum, s = [], 0.0
    for k in keys:
        s += pool[k]
        cum.append(s)
    r = random.Random(1)

    def draw(n):
        c = {}
        for k in r.choices(keys, cum_weights=cum, k=n):
            c[k] = c.get(k, 0) + 1
        return {k: v / n for k, v in c.items()}

    e1 = e2 = 0.0
    for _ in range(sims):
        pt, a, b = draw(npt), draw(na), draw(nb)
        e1 += overlap(pt, a)
        e2 += overlap(a, b)
    print("%.4f %.4f" % (e1 / sims, e2 / sims))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "gen":
        gen(int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "loop":
        loop(float(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "sqldb":
        sqldb(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "sqlq":
        sqlq(float(sys.argv[2]))
    elif len(sys.argv) == 6 and sys.argv[1] == "noise":
        noise(sys.argv[2], *(int(x) for x in sys.argv[3:]))
    else:
        sys.exit("usage: accuracy_work.py gen BYTES | loop SECS"
                 " | noise SHARES N_PT N_A N_B")
