#!/usr/bin/env python3
"""Fetches the ROCm wheels the AMD tests read (JAX's ROCm plug-ins: jax-rocm60-plugin 0.5.0,
plain offload bundles of 11 gfx targets; jax-rocm7-plugin 0.10.0, compressed bundles (CCOB v3,
zstd) of generic targets; about 8 MB each) into OUTDIR and unpacks each into WHEEL.d/ beside
it, so `arch` on a wheel can be compared with `arch` on its unpacked members.

usage: rocm_files.py OUTDIR
Prints one line per wheel: NAME<TAB>WHEEL<TAB>UNPACKED_DIR. Files already in OUTDIR are reused.
Exit 0 done, 77 the index cannot be reached (the caller skips), 1 anything else."""
import os
import sys
import urllib.error

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pe_files import fetch_wheel  # noqa: E402
from zip_files import unpack  # noqa: E402

WHEELS = [
    ("rocm60", "jax-rocm60-plugin", "0.5.0", "cp312-cp312-manylinux_2_28_x86_64"),
    ("rocm7", "jax-rocm7-plugin", "0.10.0", "cp312-cp312-manylinux_2_28_x86_64"),
]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    try:
        wheels = [(name, fetch_wheel(p, v, part, out)) for name, p, v, part in WHEELS]
    except (urllib.error.URLError, OSError) as e:
        if isinstance(e, urllib.error.HTTPError):
            raise
        print("the package index cannot be reached: %s" % e, file=sys.stderr)
        return 77
    for name, whl in wheels:
        print("%s\t%s\t%s" % (name, whl, unpack(whl)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
