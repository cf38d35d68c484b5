#!/usr/bin/env python3
"""Fetches real wheels with device code for test_zip (NVIDIA's nvjpeg for Windows and for
Linux, a few MB each) and unpacks each into WHEEL.d/ beside it, so `arch` on the wheel can be
compared with `arch` on its unpacked members. Also writes small.whl: a wheel written by
Python's zipfile (as the `wheel` tool writes them) around the MinGW-built PE fixture and a
cubin fixture, the base of the mutation test.

usage: zip_files.py OUTDIR FIXTURES_DIR
Prints one line per wheel: WHEEL<TAB>UNPACKED_DIR, then "small<TAB>PATH". Files already in
OUTDIR are reused. Exit 0 done, 77 the index cannot be reached (the caller skips), 1 else."""
import os
import sys
import urllib.error
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pe_files import fetch_wheel  # noqa: E402

WHEELS = [
    ("nvidia-nvjpeg-cu12", "12.4.0.76", "win_amd64"),
    ("nvidia-nvjpeg-cu12", "12.4.0.76", "manylinux2014_x86_64"),
]


def unpack(whl):
    out = whl + ".d"
    if not os.path.isdir(out):
        with zipfile.ZipFile(whl) as z:
            z.extractall(out + ".part")
        os.rename(out + ".part", out)
    return out


def main():
    out, fixtures = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    try:
        wheels = [fetch_wheel(p, v, part, out) for p, v, part in WHEELS]
    except (urllib.error.URLError, OSError) as e:
        if isinstance(e, urllib.error.HTTPError):
            raise
        print("the package index cannot be reached: %s" % e, file=sys.stderr)
        return 77
    for whl in wheels:
        print("%s\t%s" % (whl, unpack(whl)))
    small = os.path.join(out, "small.whl")
    with zipfile.ZipFile(small + ".part", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("pkg/__init__.py", "")
        z.write(os.path.join(fixtures, "k_win.dll"), "pkg/bin/k_win.dll")
        z.write(os.path.join(fixtures, "k_sm90a.cubin"), "pkg/k_sm90a.cubin", zipfile.ZIP_STORED)
        z.writestr("pkg-1.0.dist-info/RECORD", "pkg/__init__.py,,\n")
    os.rename(small + ".part", small)
    print("small\t%s" % small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
