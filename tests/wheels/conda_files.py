#!/usr/bin/env python3
"""Builds conda packages for test_conda from real files, as conda-package-handling lays them
out: a `.conda` zip (stored members, like conda's own) holding metadata.json,
info-NAME.tar.zst and pkg-NAME.tar.zst, whose payload tarball holds the Linux nvjpeg wheel's
libnvjpeg.so.12 (fetched by zip_files.py), the nvcc-built libk_shared.so, k_sm90a.cubin and
a Python file, with a pax header (a path over 100 bytes) and a GNU long name among them; the
same tarball also as a bare .tar.zst; and small.conda (the fixtures only) for the mutation
test. Compressed with the `zstd` command (Debian's zstd, tools/deps.sh).

usage: conda_files.py OUTDIR NVJPEG_WHEEL_DIR FIXTURES_DIR
Prints lines: "big<TAB>CONDA<TAB>UNPACKED_DIR", "tarzst<TAB>PATH", "small<TAB>PATH".
Exit 0 done, 1 else."""
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile

LONG = "lib/python3.12/site-packages/pkg/" + "deep/" * 20 + "libk_long.so"


def tarball(members, out, fmt):
    """members: (archive name, path). Writes out.tar.zst through the zstd command."""
    raw = out + ".tar"
    with tarfile.open(raw, "w", format=fmt) as t:
        for name, path in members:
            t.add(path, name)
    subprocess.run(["zstd", "-q", "-f", "-19", "--long=27", raw, "-o", out], check=True)
    os.unlink(raw)


def conda(path, pkg_members, unpacked, fmt=tarfile.PAX_FORMAT):
    stem = os.path.basename(path)[:-len(".conda")]
    work = path + ".work"
    os.makedirs(work, exist_ok=True)
    pkg, info = os.path.join(work, "pkg-%s.tar.zst" % stem), os.path.join(work, "info-%s.tar.zst" % stem)
    tarball(pkg_members, pkg, fmt)
    index = os.path.join(work, "index.json")
    with open(index, "w") as f:
        json.dump({"name": stem, "version": "1.0"}, f)
    tarball([("info/index.json", index)], info, fmt)
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_STORED) as z:
        z.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
        z.write(pkg, os.path.basename(pkg))
        z.write(info, os.path.basename(info))
    os.rename(path + ".part", path)
    if unpacked:
        for name, src in pkg_members:
            dst = os.path.join(unpacked, name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src, "rb") as a, open(dst, "wb") as b:
                b.write(a.read())
    return pkg


def main():
    out, wheel_dir, fixtures = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    nvjpeg = os.path.join(wheel_dir, "nvidia", "nvjpeg", "lib", "libnvjpeg.so.12")
    fx = lambda n: os.path.join(fixtures, n)  # noqa: E731
    py = os.path.join(out, "__init__.py")
    with open(py, "w") as f:
        f.write("")
    members = [
        ("lib/libnvjpeg.so.12", nvjpeg),
        ("lib/libk_shared.so", fx("libk_shared.so")),
        ("lib/python3.12/site-packages/pkg/__init__.py", py),
        ("lib/python3.12/site-packages/pkg/k_sm90a.cubin", fx("k_sm90a.cubin")),
        (LONG, fx("libk_shared.so")),
    ]
    big = os.path.join(out, "nvjpeg-12.4.0.76-0.conda")
    unpacked = big + ".d"
    if not os.path.exists(big):
        conda(big, members, unpacked)
    tarzst = os.path.join(out, "gnu-1.0-0.tar.zst")
    if not os.path.exists(tarzst):
        tarball(members[1:], tarzst, tarfile.GNU_FORMAT)
    small = os.path.join(out, "small-1.0-0.conda")
    if not os.path.exists(small):
        conda(small, [("lib/libk_shared.so", fx("libk_shared.so")),
                      ("lib/k_sm90a.cubin", fx("k_sm90a.cubin"))], None, tarfile.USTAR_FORMAT)
    print("big\t%s\t%s" % (big, unpacked))
    print("tarzst\t%s" % tarzst)
    print("small\t%s" % small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
