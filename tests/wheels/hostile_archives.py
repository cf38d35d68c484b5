#!/usr/bin/env python3
"""Builds crafted archives for test_hostile_archives, small on disk and costly to a reader that
trusts them:
- overlap.whl: one deflated member (an ELF header, then 64 MiB of zeros: about 64 KB) and
  ENTRIES central entries that all point at its local header, so a reader that takes every
  entry inflates the same bytes ENTRIES times;
- pkg_in_zip.whl: a wheel holding pkg-x.tar.zst, a zstd frame of a tarball of one 512 MiB
  library of zeros (about 16 KB), which only a conda package may hold as its payload;
- bomb.conda: the same tarball as a conda package's payload, past the archive's budget;
- errors.whl: 300 members that can carry device code, 299 with a damaged local header;
- many.whl: 200,000 members (zip64), all but the first with a damaged local header: one
  error each, which were all kept and printed;
- names.whl: members named with a newline, a carriage return and a NUL, each a damaged ELF
  file, so the report names them.
Compressed with the `zstd` command (Debian's zstd, tools/deps.sh).

usage: hostile_archives.py OUTDIR ENTRIES
Exit 0 done, 1 else."""
import os
import struct
import subprocess
import sys
import tarfile
import zlib

ELF = b"\x7fELF\x02\x01\x01" + b"\0" * 9


def local_header(name, method, crc, csize, size):
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, csize, size, len(name), 0) + name


def central(name, method, crc, csize, size, off):
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, csize, size, len(name), 0, 0,
                       0, 0, 0, off) + name


def end(n, cd_size, cd_off):
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, cd_size, cd_off, 0)


def overlap(path, entries):
    data = ELF + b"\0" * (64 << 20)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = comp.compress(data) + comp.flush()
    crc = zlib.crc32(data)
    first = b"lib/libx.so"
    body = local_header(first, 8, crc, len(packed), len(data)) + packed
    cd = b"".join(central(b"lib/libx%d.so" % i if i else first, 8, crc, len(packed), len(data), 0)
                  for i in range(entries))
    with open(path, "wb") as f:
        f.write(body + cd + end(entries, len(cd), len(body)))


def stored_zip(path, members):
    body, cd = b"", b""
    for name, data in members:
        off = len(body)
        crc = zlib.crc32(data)
        body += local_header(name, 0, crc, len(data), len(data)) + data
        cd += central(name, 0, crc, len(data), len(data), off)
    with open(path, "wb") as f:
        f.write(body + cd + end(len(members), len(cd), len(body)))


def tar_zst(out, work):
    lib = os.path.join(work, "libbig.so")
    with open(lib, "wb") as f:
        f.write(ELF)
        f.truncate(512 << 20)
    raw = out + ".tar"
    with tarfile.open(raw, "w") as t:
        t.add(lib, "lib/libbig.so")
    subprocess.run(["zstd", "-q", "-f", "-3", raw, "-o", out], check=True)
    os.unlink(raw)
    os.unlink(lib)
    with open(out, "rb") as f:
        return f.read()


def errors(path):
    """300 stored members, all but the first with a damaged local header (a wrong signature)."""
    body, cd = b"", b""
    for i in range(300):
        name = b"lib/libk%d.so" % i
        data = ELF
        off = len(body)
        crc = zlib.crc32(data)
        header = local_header(name, 0, crc, len(data), len(data))
        body += (header if i == 0 else b"XXXX" + header[4:]) + data
        cd += central(name, 0, crc, len(data), len(data), off)
    with open(path, "wb") as f:
        f.write(body + cd + end(300, len(cd), len(body)))


def many(path, n):
    body, cd = bytearray(), bytearray()
    for i in range(n):
        name = b"lib/libx%07d.so" % i
        off = len(body)
        header = local_header(name, 0, 0, 0, 0)
        body += header if i == 0 else b"XXXX" + header[4:]
        cd += central(name, 0, 0, 0, 0, off)
    end64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, len(cd), len(body))
    locator = struct.pack("<IIQI", 0x07064B50, 0, len(body) + len(cd), 1)
    tail = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, len(cd), len(body), 0)
    with open(path, "wb") as f:
        f.write(bytes(body) + bytes(cd) + end64 + locator + tail)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    out, entries = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    overlap(os.path.join(out, "overlap.whl"), entries)
    payload = tar_zst(os.path.join(out, "pkg-x.tar.zst"), out)
    stored_zip(os.path.join(out, "pkg_in_zip.whl"), [(b"pkg-x.tar.zst", payload)])
    stored_zip(os.path.join(out, "bomb.conda"), [(b"metadata.json", b'{"conda_pkg_format_version": 2}'),
                                                 (b"pkg-x.tar.zst", payload)])
    errors(os.path.join(out, "errors.whl"))
    many(os.path.join(out, "many.whl"), 200000)
    stored_zip(os.path.join(out, "names.whl"), [(b"lib/a\nFORGED LINE.so", ELF), (b"lib/b\rBACK.so", ELF),
                                                (b"lib/cut\0HIDDEN.so", ELF)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
