#!/usr/bin/env python3
"""`make dist`: the Linux wheel and tarball of a built cudoctor, written with the standard
library only (no build backend to fetch), byte for byte the same from the same binary.

usage: make_dist.py [--windows cudoctor.exe] BINARY OUTDIR    (BINARY in its CMake build tree)

With --windows, also the py3-none-win_amd64 wheel carrying cudoctor.exe (`make windows`).

The files come from `cmake --install` of component "cudoctor" (the binary stripped, the man
page), so the wheel, the tarball and `make deb` carry the same binary. The version is the
binary's own (`cudoctor --version`, from CMakeLists.txt's project()). The wheel's platform tag
is the glibc the binary needs: the newest GLIBC_2.N symbol version it references gives
manylinux_2_N (2_17 at the least), which is what auditwheel reads from it too; a binary that
needs a library outside the manylinux set gets the plain linux tag.
Prints the wheel's and the tarball's paths, one a line (then the Windows wheel's).
"""
import base64
import gzip
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

SUMMARY = "Checks the CUDA stack of a machine and explains CUDA errors with evidence"
# zip and tar entries carry this time, so a rebuild of one binary gives the same bytes
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, zip's first day
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    sys.stderr.write("make_dist: %s\n" % msg)
    sys.exit(1)


def binary_version(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    m = re.match(r"cudoctor ([0-9][0-9A-Za-z.+-]*)( \(commit [0-9a-z-]+\))?\n", out)
    if not m:
        fail("'%s --version' names no version" % binary)
    return m.group(1)


def glibc_floor(binary):
    """(2, N): the newest glibc symbol version the binary references, 2.17 at the least."""
    out = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True, check=True).stdout
    minors = [int(m) for m in re.findall(r"\bGLIBC_2\.([0-9]+)", out)]
    return 2, max(minors + [17])


# the libraries a manylinux wheel may need from the system (auditwheel's policy, less X11/GL)
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
                  "libstdc++.so.6", "libresolv.so.2", "libutil.so.1", "libnsl.so.1", "ld-linux-x86-64.so.2"}


def platform_tag(binary):
    """manylinux_2_N, or plain linux when the binary needs a library no manylinux system
    promises (a sanitizer build's runtime)"""
    out = subprocess.run(["objdump", "-p", binary], capture_output=True, text=True, check=True).stdout
    if any(lib not in MANYLINUX_LIBS for lib in re.findall(r"^\s*NEEDED\s+(\S+)", out, re.M)):
        return "linux_%s" % platform.machine()
    major, minor = glibc_floor(binary)
    return "manylinux_%d_%d_%s" % (major, minor, platform.machine())


def staged_install(binary, root):
    tree = os.path.dirname(os.path.abspath(binary))
    if not os.path.isfile(os.path.join(tree, "cmake_install.cmake")):
        fail("%s is not a CMake build tree (no cmake_install.cmake)" % tree)
    env = dict(os.environ, DESTDIR=root)
    subprocess.run(["cmake", "--install", tree, "--prefix", "/usr", "--component", "cudoctor", "--strip"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(root, "usr")


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def zip_add(z, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=time.gmtime(EPOCH)[:6])
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data, compresslevel=9)


def metadata(version, system):
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\n"
            "Name: cudoctor\n"
            "Version: %s\n"
            "Summary: %s\n"
            "License: MIT\n"
            "Classifier: License :: OSI Approved :: MIT License\n"
            "Classifier: Environment :: GPU :: NVIDIA CUDA\n"
            "Classifier: Operating System :: %s\n"
            "Classifier: Programming Language :: C\n"
            "Requires-Python: >=3.7\n"
            "Description-Content-Type: text/markdown\n"
            "\n%s" % (version, SUMMARY, system, readme))


def build_wheel(exe_name, exe_bytes, version, tag, outdir, system):
    dist_info = "cudoctor-%s.dist-info" % version
    files = []  # (name, data, mode)
    for name in ("__init__.py", "__main__.py"):
        with open(os.path.join(SRC, "python", "cudoctor", name), "rb") as f:
            files.append(("cudoctor/" + name, f.read(), 0o644))
    files.append(("cudoctor/bin/" + exe_name, exe_bytes, 0o755))
    with open(os.path.join(SRC, "LICENSE"), "rb") as f:
        files.append((dist_info + "/LICENSE", f.read(), 0o644))
    files.append((dist_info + "/METADATA", metadata(version, system).encode(), 0o644))
    files.append((dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: cudoctor tools/make_dist.py\n"
                                         "Root-Is-Purelib: false\nTag: py3-none-%s\n" % tag).encode(), 0o644))
    files.append((dist_info + "/entry_points.txt", b"[console_scripts]\ncudoctor = cudoctor.__main__:main\n", 0o644))
    files.append((dist_info + "/top_level.txt", b"cudoctor\n", 0o644))
    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d, _ in files)
    files.append((dist_info + "/RECORD", (record + dist_info + "/RECORD,,\n").encode(), 0o644))
    path = os.path.join(outdir, "cudoctor-%s-py3-none-%s.whl" % (version, tag))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for name, data, mode in files:  # dist-info last, RECORD last of all, as installers expect
            zip_add(z, name, data, mode)
    os.replace(tmp, path)
    return path


def build_tarball(usr, version, outdir):
    top = "cudoctor-%s-linux-%s" % (version, platform.machine())
    members = [("cudoctor", os.path.join(usr, "bin", "cudoctor"), 0o755),
               ("cudoctor.1", os.path.join(usr, "share", "man", "man1", "cudoctor.1"), 0o644),
               ("README.md", os.path.join(SRC, "README.md"), 0o644),
               ("LICENSE", os.path.join(SRC, "LICENSE"), 0o644)]
    path = os.path.join(outdir, top + ".tar.gz")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        def add(name, data, mode, kind=tarfile.REGTYPE):
            info = tarfile.TarInfo(name)
            info.type, info.mode, info.mtime, info.size = kind, mode, EPOCH, len(data)
            info.uname = info.gname = "root"
            t.addfile(info, io.BytesIO(data) if data else None)
        add(top, b"", 0o755, tarfile.DIRTYPE)
        for name, src, mode in members:
            with open(src, "rb") as f:
                add(top + "/" + name, f.read(), mode)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as g:
        g.write(buf.getvalue())
    os.replace(tmp, path)
    return path


def main(argv):
    args = argv[1:]
    exe = None
    if len(args) >= 2 and args[0] == "--windows":
        exe, args = args[1], args[2:]
    if len(args) != 2:
        fail("usage: make_dist.py [--windows cudoctor.exe] BINARY OUTDIR")
    binary, outdir = args
    if not os.access(binary, os.X_OK):
        fail("%s is not an executable" % binary)
    version = binary_version(binary)
    os.makedirs(outdir, exist_ok=True)
    stage = tempfile.mkdtemp(prefix="cudoctor-dist-")
    try:
        usr = staged_install(binary, stage)
        linux_bin = os.path.join(usr, "bin", "cudoctor")
        tag = platform_tag(linux_bin)
        with open(linux_bin, "rb") as f:
            print(build_wheel("cudoctor", f.read(), version, tag, outdir, "POSIX :: Linux"))
        print(build_tarball(usr, version, outdir))
        if exe:
            # one source, one version: the exe is from the same tree (make windows)
            with open(exe, "rb") as f:
                data = f.read()
            if data[:2] != b"MZ":
                fail("%s is not a Windows program" % exe)
            print(build_wheel("cudoctor.exe", data, version, "win_amd64", outdir, "Microsoft :: Windows"))
    finally:
        shutil.rmtree(stage, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv)
