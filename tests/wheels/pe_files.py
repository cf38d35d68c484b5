#!/usr/bin/env python3
"""Fetches real Windows PE files with device code (and without) for test_pe: small win_amd64
wheels from the package index, single members of larger ones, and NVIDIA's Linux cuobjdump
(nvidia-cuda-cuobjdump wheel).
Linux cuobjdump does not open PE files, so each DLL's .nv_fatb section is cut out to
STEM.fatbin and cuobjdump --list-elf --list-ptx of it is kept as STEM.cuobjdump.txt.

usage: pe_files.py OUTDIR
Prints one line per file: PATH<TAB>STEM.cuobjdump.txt (or '-' for a file without .nv_fatb).
Files already in OUTDIR are reused. Exit 0 done, 77 the index cannot be reached (the caller
skips), 1 anything else."""
import os
import struct
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import json
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fetch_member  # noqa: E402

INDEX = os.environ.get("CUDOCTOR_TEST_INDEX", "https://pypi.org/pypi")
# (project, version, wheel-name part, members): a few MB to tens of MB each
WHEELS = [
    ("nvidia-nvjpeg-cu12", "12.4.0.76", "win_amd64", ["nvidia/nvjpeg/bin/nvjpeg64_12.dll"]),
    ("nvidia-cuda-runtime-cu12", "12.9.79", "win_amd64", ["nvidia/cuda_runtime/bin/cudart64_12.dll"]),
    ("ctranslate2", "4.8.5", "cp312-cp312-win_amd64",
     ["ctranslate2/ctranslate2.dll", "ctranslate2/_ext.cp312-win_amd64.pyd"]),
]
# Members of larger wheels, fetched alone (tests/wheels/fetch_member.py: HTTP range requests):
# other producers' device code in a .pyd (CuPy), a DLL per CUDA release (bitsandbytes) and
# NVIDIA Warp's runtime DLL; 36 MB in all
MEMBERS = [
    ("cupy-cuda12x", "14.2.0", "cp312-cp312-win_amd64", ["cupy/random/_generator_api.cp312-win_amd64.pyd"]),
    ("bitsandbytes", "0.50.2", "win_amd64", ["bitsandbytes/libbitsandbytes_cuda130.dll"]),
    ("warp-lang", "1.0.0", "win_amd64", ["warp/bin/warp.dll"]),
]
CUOBJDUMP = ("nvidia-cuda-cuobjdump", "13.2.51", "manylinux2014_x86_64")


def fetch_wheel(project, version, part, out):
    meta_url = "%s/%s/json" % (INDEX, project)
    with urllib.request.urlopen(meta_url, timeout=120) as r:
        meta = json.load(r)
    for f in meta.get("releases", {}).get(version, []):
        if part in f["filename"] and f["filename"].endswith(".whl"):
            path = os.path.join(out, f["filename"])
            if not os.path.exists(path):
                tmp = path + ".part"
                with urllib.request.urlopen(urllib.parse.urljoin(meta_url, f["url"]), timeout=300) as r, \
                        open(tmp, "wb") as w:
                    while True:
                        b = r.read(1 << 20)
                        if not b:
                            break
                        w.write(b)
                os.rename(tmp, path)
            return path
    raise LookupError("%s %s has no wheel whose name contains %r" % (project, version, part))


def nv_fatb(path):
    """The raw bytes of the .nv_fatb section (min of raw and virtual size), or None."""
    d = open(path, "rb").read()
    o = struct.unpack_from("<I", d, 0x3C)[0]
    ns, osz = struct.unpack_from("<H", d, o + 6)[0], struct.unpack_from("<H", d, o + 20)[0]
    st = o + 24 + osz
    for i in range(ns):
        h = d[st + 40 * i: st + 40 * i + 40]
        if h[:8] == b".nv_fatb":
            vsize, rsize, roff = struct.unpack_from("<I", h, 8)[0], struct.unpack_from("<I", h, 16)[0], \
                struct.unpack_from("<I", h, 20)[0]
            return d[roff: roff + (min(vsize, rsize) if vsize else rsize)]
    return None


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    try:
        wheels = [(fetch_wheel(p, v, part, out), members) for p, v, part, members in WHEELS]
        cw = fetch_wheel(*CUOBJDUMP, out)
    except (urllib.error.URLError, OSError) as e:
        if isinstance(e, urllib.error.HTTPError):
            raise
        print("the package index cannot be reached: %s" % e, file=sys.stderr)
        return 77
    fetched = []
    for project, version, part, members in MEMBERS:
        rc = fetch_member.main(["fetch_member.py", project, version, part, out] + members)
        if rc:
            return rc
        fetched += [os.path.join(out, os.path.basename(m)) for m in members]
    cuobjdump = os.path.join(out, "cuobjdump")
    if not os.path.exists(cuobjdump):
        with zipfile.ZipFile(cw) as z:
            name = next(n for n in z.namelist() if n.endswith("/bin/cuobjdump"))
            with z.open(name) as r, open(cuobjdump + ".part", "wb") as w:
                w.write(r.read())
        os.chmod(cuobjdump + ".part", 0o755)
        os.rename(cuobjdump + ".part", cuobjdump)
    for whl, members in wheels:
        with zipfile.ZipFile(whl) as z:
            for m in members:
                path = os.path.join(out, os.path.basename(m))
                if not os.path.exists(path):
                    with z.open(m) as r, open(path + ".part", "wb") as w:
                        while True:
                            b = r.read(1 << 20)
                            if not b:
                                break
                            w.write(b)
                    os.rename(path + ".part", path)
                fetched.append(path)
    for path in fetched:
        sec = nv_fatb(path)
        if sec is None:
            print("%s\t-" % path)
            continue
        stem = os.path.splitext(os.path.basename(path))[0]
        fat = os.path.join(out, "fatbin", stem + ".fatbin")
        txt = os.path.join(out, stem + ".cuobjdump.txt")
        if not os.path.exists(txt):
            os.makedirs(os.path.dirname(fat), exist_ok=True)
            open(fat, "wb").write(sec)
            res = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", fat], cwd=os.path.dirname(fat),
                                 capture_output=True)
            if res.returncode != 0:
                print("cuobjdump failed on %s: %s" % (fat, res.stderr.decode(errors="replace")), file=sys.stderr)
                return 1
            open(txt + ".part", "wb").write(res.stdout)
            os.rename(txt + ".part", txt)
        print("%s\t%s" % (path, txt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
