#!/usr/bin/env python3
"""Writes the large member of test_zip: big-V.so, a 300 MiB shared library of zeros whose
.nv_fatbin (a real nvcc-built fatbin) lies at its end and whose section names lie in its
middle, before its section table (so arch's first pass over the stream misses some of them and
a second fetches them), and big-V.zip holding it stored as pkg/lib/libbig.so. Both are reused
when present.

usage: big_member.py OUTDIR FATBIN
Prints the two paths, one a line. Exit 0 done, 1 else."""
import os
import struct
import sys
import zipfile

SIZE = 300 << 20
CHUNK = 1 << 20
# .shstrtab's own name 6 KB before .nv_fatbin's: arch keeps 2 KiB around the latter as it
# passes, so the former is fetched by a second pass
NAMES = b"\0.shstrtab\0." + b"f" * 6000 + b"\0.nv_fatbin\0"
FATBIN_NAME = NAMES.index(b".nv_fatbin")
VERSION = 2  # in the file names: a cache of another layout is not reused


def elf_bytes(fatbin):
    """(offset, bytes) of every non-zero part of the library, in order."""
    fat_at = (SIZE - len(fatbin)) & ~7
    names_at = SIZE // 2 - 10  # across a page boundary, two pages before the table
    table_at = SIZE // 2 + 8192
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, table_at, 0, 64, 0, 0, 64, 3, 2)

    def shdr(name, typ, flags, off, size, align):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, 0, off, size, 0, 0, align, 0)

    table = (shdr(0, 0, 0, 0, 0, 0) + shdr(FATBIN_NAME, 1, 2, fat_at, len(fatbin), 8)
             + shdr(1, 3, 0, names_at, len(NAMES), 1))
    return [(0, header), (names_at, NAMES), (table_at, table), (fat_at, fatbin)]


def write_stream(out, parts):
    at = 0
    for off, data in parts:
        while at < off:
            n = min(CHUNK, off - at)
            out.write(bytes(n))
            at += n
        out.write(data)
        at += len(data)
    while at < SIZE:
        n = min(CHUNK, SIZE - at)
        out.write(bytes(n))
        at += n


def main():
    outdir, fatbin_path = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    with open(fatbin_path, "rb") as f:
        parts = elf_bytes(f.read())
    so, whl = (os.path.join(outdir, "big-%d.%s" % (VERSION, ext)) for ext in ("so", "zip"))
    if not os.path.exists(so):
        with open(so + ".part", "wb") as out:
            write_stream(out, parts)
        os.rename(so + ".part", so)
    if not os.path.exists(whl):
        with zipfile.ZipFile(whl + ".part", "w", zipfile.ZIP_STORED) as z:
            with z.open(zipfile.ZipInfo("pkg/lib/libbig.so"), "w", force_zip64=True) as out:
                write_stream(out, parts)
        os.rename(whl + ".part", whl)
    print(so)
    print(whl)
    return 0


if __name__ == "__main__":
    sys.exit(main())
