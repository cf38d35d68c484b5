#!/usr/bin/env python3
"""Extracts named members of a wheel on the package index into a cache directory, reading
only the zip's central directory and those members (HTTP range requests, streamed inflate),
so a test gets torch/lib/libtorch_cuda.so without downloading the whole ~900 MB wheel.

usage: fetch_member.py PROJECT VERSION FILENAME_PART OUTDIR MEMBER...
       fetch_member.py --list PROJECT VERSION FILENAME_PART OUTFILE
Files already in OUTDIR are reused. --list writes the wheel's member names, one a line, to
OUTFILE (reused when it exists): only the central directory is read. Exit 0 done, 77 the index cannot be reached (the caller
skips), 1 anything else (the wheel or a member is not what was expected)."""
import json
import os
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request
import zlib

INDEX = os.environ.get("CUDOCTOR_TEST_INDEX", "https://pypi.org/pypi")
TIMEOUT = 120


def get(url, start=None, end=None):
    req = urllib.request.Request(url)
    if start is not None:
        req.add_header("Range", "bytes=%d-%s" % (start, "" if end is None else end))
    return urllib.request.urlopen(req, timeout=TIMEOUT)


def wheel_url(project, version, part):
    meta_url = "%s/%s/json" % (INDEX, project)
    with get(meta_url) as r:
        meta = json.load(r)
    for f in meta.get("releases", {}).get(version, []):
        if part in f["filename"] and f["filename"].endswith(".whl"):
            return urllib.parse.urljoin(meta_url, f["url"]), f["size"]
    raise LookupError("%s %s has no wheel whose name contains %r" % (project, version, part))


def central_directory(url, size):
    tail_len = min(size, 128 * 1024)
    with get(url, size - tail_len, size - 1) as r:
        tail = r.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise ValueError("no end of central directory in the last %d bytes" % tail_len)
    _, _, _, _, count, cd_size, cd_off, _ = struct.unpack("<IHHHHIIH", tail[at:at + 22])
    if cd_off == 0xFFFFFFFF or count == 0xFFFF:  # zip64
        loc = tail.rfind(b"PK\x06\x07")
        eocd64_off = struct.unpack("<Q", tail[loc + 8:loc + 16])[0]
        rel = eocd64_off - (size - tail_len)
        count, cd_size, cd_off = struct.unpack("<QQQ", tail[rel + 32:rel + 56])
    with get(url, cd_off, cd_off + cd_size - 1) as r:
        cd = r.read()
    entries, p = {}, 0
    for _ in range(count):
        (sig, _, _, _, method, _, _, _, csize, usize, nlen, xlen, clen, _, _, _,
         off) = struct.unpack("<IHHHHHHIIIHHHHHII", cd[p:p + 46])
        if sig != 0x02014B50:
            raise ValueError("bad central directory entry at %d" % p)
        name = cd[p + 46:p + 46 + nlen].decode("utf-8", "replace")
        extra = cd[p + 46 + nlen:p + 46 + nlen + xlen]
        if 0xFFFFFFFF in (csize, usize, off):  # zip64 extra field holds the real values
            q = 0
            while q + 4 <= len(extra):
                tag, ln = struct.unpack("<HH", extra[q:q + 4])
                if tag == 1:
                    vals = list(struct.unpack("<%dQ" % (ln // 8), extra[q + 4:q + 4 + ln]))
                    if usize == 0xFFFFFFFF:
                        usize = vals.pop(0)
                    if csize == 0xFFFFFFFF:
                        csize = vals.pop(0)
                    if off == 0xFFFFFFFF:
                        off = vals.pop(0)
                q += 4 + ln
        entries[name] = (method, csize, usize, off)
        p += 46 + nlen + xlen + clen
    return entries


def extract(url, entry, dest):
    method, csize, usize, off = entry
    with get(url, off, off + 30 - 1) as r:
        hdr = r.read()
    nlen, xlen = struct.unpack("<HH", hdr[26:30])
    start = off + 30 + nlen + xlen
    tmp = dest + ".part.%d" % os.getpid()
    inflate = zlib.decompressobj(-15) if method == 8 else None
    if method not in (0, 8):
        raise ValueError("member compressed with method %d" % method)
    written = 0
    with get(url, start, start + csize - 1) as r, open(tmp, "wb") as out:
        while True:
            chunk = r.read(1 << 20)
            if not chunk:
                break
            data = inflate.decompress(chunk) if inflate else chunk
            out.write(data)
            written += len(data)
        if inflate:
            tail = inflate.flush()
            out.write(tail)
            written += len(tail)
    if written != usize:
        os.unlink(tmp)
        raise ValueError("%s: %d bytes inflated, the zip says %d" % (dest, written, usize))
    os.rename(tmp, dest)


def open_wheel(project, version, part):
    """(url, entries, 0), or (None, None, exit status) with the reason on stderr."""
    try:
        url, size = wheel_url(project, version, part)
        return url, central_directory(url, size), 0
    except urllib.error.HTTPError as e:
        sys.stderr.write("fetch_member: %s %s: %s\n" % (project, version, e))
        return None, None, 1
    except (urllib.error.URLError, OSError) as e:
        sys.stderr.write("fetch_member: the package index cannot be reached: %s\n" % e)
        return None, None, 77


def list_members(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    project, version, part, outfile = argv[2:6]
    if os.path.isfile(outfile):
        return 0
    _, entries, status = open_wheel(project, version, part)
    if status:
        return status
    os.makedirs(os.path.dirname(outfile) or ".", exist_ok=True)
    tmp = outfile + ".part.%d" % os.getpid()
    with open(tmp, "w") as out:
        for name in sorted(entries):
            out.write(name + "\n")
    os.rename(tmp, outfile)
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--list":
        return list_members(argv)
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    project, version, part, outdir, members = argv[1], argv[2], argv[3], argv[4], argv[5:]
    os.makedirs(outdir, exist_ok=True)
    wanted = [(m, os.path.join(outdir, os.path.basename(m))) for m in members]
    if all(os.path.isfile(d) for _, d in wanted):
        return 0
    url, entries, status = open_wheel(project, version, part)
    if status:
        return status
    for m, dest in wanted:
        if os.path.isfile(dest):
            continue
        if m not in entries:
            sys.stderr.write("fetch_member: %s is not in %s\n" % (m, url))
            return 1
        try:
            extract(url, entries[m], dest)
        except (urllib.error.URLError, OSError) as e:
            sys.stderr.write("fetch_member: download of %s failed: %s\n" % (m, e))
            return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
