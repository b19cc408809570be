#!/usr/bin/env python3
"""hostile_profile - write hostile profiles for ptprof report's tests.

  hostile_profile.py maps N OUT
      a legacy (gperftools) profile whose maps text has N executable
      mappings, each of a distinct path that does not exist, and one
      record per mapping (a PC inside it)
  hostile_profile.py pbgz KIND N OUT
      a gzipped pprof protobuf that is small on disk but decodes to N
      messages or entries of KIND: strings (empty string_table entries),
      samples (empty samples), locids (one sample with N packed
      location ids)
  hostile_profile.py refused N FILE OUT
      a legacy profile of N executable mappings of FILE (an ELF file
      that exists), each under another spelling of its path ("/" and
      "/." inserted) and with build ID 00 on its brief line, so that
      each is a distinct file the symbolizer finds and refuses; one
      record per mapping
  hostile_profile.py mapped PATH OUT
      a gzipped pprof protobuf of one sample at one address in one
      mapping of PATH (a device, a FIFO: anything), with a build ID, so
      that ptprof report looks the file up to symbolize it
  hostile_profile.py deep N DEPTH OUT
      a legacy profile of N records, each a distinct stack DEPTH frames
      deep, of 1024 distinct PCs inside one mapping of /bin/true

The numbers are the caller's choice: the tests pick them so the old
code visibly fails (time, memory) and the fixed code passes.
"""
import gzip
import struct
import sys


def w64(*vals):
    return struct.pack("<%dQ" % len(vals), *vals)


def legacy(records, maps_text):
    """records: list of (count, [pcs]); maps_text: bytes."""
    out = [w64(0, 3, 0, 10000, 0)]
    for count, pcs in records:
        out.append(w64(count, len(pcs), *pcs))
    out.append(w64(0, 1, 0))
    out.append(maps_text)
    return b"".join(out)


def maps_profile(n):
    lines = []
    recs = []
    base = 0x10000000
    for i in range(n):
        start = base + i * 0x2000
        lines.append(b"%x-%x r-xp 00000000 08:01 %d /nonexistent/lib%d.so\n"
                     % (start, start + 0x1000, i + 1, i))
        recs.append((1, [start + 0x10]))
    return legacy(recs, b"".join(lines))


def refused_profile(n, path):
    d, base = path.rsplit("/", 1)
    lines = []
    recs = []
    start = 0x10000000
    for i in range(n):
        p = d + "".join("/." if (i >> b) & 1 else "/" for b in range(20))
        p = (p + "/" + base).encode()
        s = start + i * 0x2000
        lines.append(b"%x-%x r-xp %s (@0) 00\n" % (s, s + 0x1000, p))
        lines.append(b"%x-%x r-xp 00000000 08:01 %d %s\n"
                     % (s, s + 0x1000, i + 1, p))
        recs.append((1, [s + 0x10]))
    return legacy(recs, b"".join(lines))


def deep_profile(n, depth):
    start = 0x555555554000
    maps = b"%x-%x r-xp 00000000 08:01 42 /bin/true\n" % (start, start + 0x10000)
    recs = []
    x = 1
    for i in range(n):
        # 1024 distinct PCs, in stacks that differ from their first
        # frames on: every stack is a path of its own in the flame graph
        pcs = []
        for k in range(depth):
            x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            pcs.append(start + 0x10 + (x >> 54) * 16)
        recs.append((1 + i % 7, pcs))
    return legacy(recs, maps)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, wire, payload):
    key = varint(num << 3 | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def pbgz(kind, n):
    # Profile: 1 sample_type, 2 sample, 3 mapping, 4 location,
    # 5 function, 6 string_table.
    head = field(6, 2, b"") + field(6, 2, b"samples") + field(6, 2, b"count")
    vt = field(1, 0, varint(1)) + field(2, 0, varint(2))
    head += field(1, 2, vt)
    if kind == "strings":
        body = field(6, 2, b"") * n
    elif kind == "samples":
        body = field(2, 2, b"") * n
    elif kind == "locids":
        body = field(2, 2, field(1, 2, b"\x01" * n) + field(2, 0, varint(1)))
    else:
        sys.exit("hostile_profile.py: unknown pbgz kind '%s'" % kind)
    return gzip.compress(head + body, 9)


def mapped(path):
    strings = [b"", b"samples", b"count", path.encode(), b"ab" * 20]
    head = b"".join(field(6, 2, t) for t in strings)
    head += field(1, 2, field(1, 0, varint(1)) + field(2, 0, varint(2)))
    start, limit = 0x400000, 0x500000
    mapping = (field(1, 0, varint(1)) + field(2, 0, varint(start)) +
               field(3, 0, varint(limit)) + field(4, 0, varint(0)) +
               field(5, 0, varint(3)) + field(6, 0, varint(4)))
    loc = (field(1, 0, varint(1)) + field(2, 0, varint(1)) +
           field(3, 0, varint(start + 0x1234)))
    sample = field(1, 2, varint(1)) + field(2, 2, varint(7))
    body = field(3, 2, mapping) + field(4, 2, loc) + field(2, 2, sample)
    return gzip.compress(head + body, 9)


def main(argv):
    if len(argv) == 4 and argv[1] == "maps":
        data = maps_profile(int(argv[2]))
    elif len(argv) == 5 and argv[1] == "pbgz":
        data = pbgz(argv[2], int(argv[3]))
    elif len(argv) == 5 and argv[1] == "refused":
        data = refused_profile(int(argv[2]), argv[3])
    elif len(argv) == 4 and argv[1] == "mapped":
        data = mapped(argv[2])
    elif len(argv) == 5 and argv[1] == "deep":
        data = deep_profile(int(argv[2]), int(argv[3]))
    else:
        sys.exit(__doc__)
    with open(argv[-1], "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main(sys.argv)
