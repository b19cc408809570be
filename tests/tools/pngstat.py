#!/usr/bin/env python3
"""pngstat - pixel statistics of screenshots, for tests/flame-svg.test.

    pngstat.py A.png          nonwhite=F warm=N
    pngstat.py A.png B.png    nonwhite=F warm=N differ=F

nonwhite: the share (0 to 1) of A's pixels that are not white; warm: how
many distinct warm colours (red >= 200, blue <= 60: the palette of
src/flame.c, whose reds run 205..255, greens 0..230, blues 0..55) cover at
least 50 pixels of A each (so that anti-aliased edges do not count);
differ: the share of pixels that differ between A and B (same size).

Reads 8-bit RGB or RGBA non-interlaced PNG, what chromium writes, with the
standard library only (struct, zlib).  Anything else: a one-line message
on stderr and exit status 1.
"""
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunks(data):
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + size]
        pos += 12 + size


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def unfilter(kind, line, prev, bpp):
    """Undo one scanline's filter in place (PNG spec, section 9)."""
    if kind == 0:
        return
    if kind == 2:
        for i in range(len(line)):
            line[i] = (line[i] + prev[i]) & 0xFF
        return
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        if kind == 1:
            line[i] = (line[i] + a) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((a + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + paeth(a, prev[i], c)) & 0xFF
        else:
            raise ValueError("bad filter type %d" % kind)


def read_png(path):
    """(width, height, list of (r, g, b) pixels, row by row)."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    header, idat = None, []
    for kind, body in chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("not 8-bit RGB/RGBA non-interlaced (depth %d, "
                         "colour type %d, interlace %d)"
                         % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    if len(raw) < height * (stride + 1):
        raise ValueError("image data too short")
    pixels, prev = [], bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        line = bytearray(raw[at + 1:at + 1 + stride])
        unfilter(raw[at], line, prev, bpp)
        pixels.extend(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
        prev = line
    return width, height, pixels


def warm(rgb):
    r, _, b = rgb
    return r >= 200 and b <= 60


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: pngstat.py A.png [B.png]\n")
        return 2
    try:
        w, h, a = read_png(argv[1])
        counts = {}
        for p in a:
            if warm(p):
                counts[p] = counts.get(p, 0) + 1
        white = a.count((255, 255, 255))
        out = "nonwhite=%.4f warm=%d" % (
            1 - white / float(len(a) or 1),
            sum(1 for n in counts.values() if n >= 50))
        if len(argv) == 3:
            w2, h2, b = read_png(argv[2])
            if (w, h) != (w2, h2):
                raise ValueError("sizes differ: %dx%d and %dx%d"
                                 % (w, h, w2, h2))
            diff = sum(1 for p, q in zip(a, b) if p != q)
            out += " differ=%.4f" % (diff / float(len(a) or 1))
    except (OSError, ValueError, zlib.error, struct.error) as e:
        sys.stderr.write("pngstat.py: %s\n" % e)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
