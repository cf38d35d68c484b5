#!/usr/bin/env python3
"""GPU test for doctor's "Will it run" (usage: test_doctor_torch.py CUDOCTOR).

For the PyTorch installed here (python3 -c 'import torch'), on every GPU torch sees:
doctor's verdict from libtorch_cuda.so's fatbin headers equals the wheel's own
torch.cuda.get_arch_list() judged against the GPU: "native" when the list has SASS the GPU runs
(sm_XY of its major with a minor no higher), "jit" when only a compute_XY at most the GPU's
fits, "no-image" otherwise. doctor runs with this interpreter's environment first on PATH, so it
finds the same torch. Exit 0 when every check passed; prints one line per check."""
import json
import os
import re
import subprocess
import sys

BIN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor")
failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)


try:
    import torch
except ImportError:
    print("SKIP: PyTorch is not installed here")
    sys.exit(77)
if not torch.cuda.is_available() or torch.version.cuda is None:
    print("SKIP: the installed PyTorch has no CUDA or sees no GPU")
    sys.exit(77)

archs = torch.cuda.get_arch_list()


def expected(major, minor):
    cc = major * 10 + minor
    sass = [int(m.group(1)) for a in archs if (m := re.fullmatch(r"sm_(\d+)", a))]
    ptx = [int(m.group(1)) for a in archs if (m := re.fullmatch(r"compute_(\d+)", a))]
    if any(s // 10 == cc // 10 and s <= cc for s in sass):
        return "native"
    if any(p <= cc for p in ptx):
        return "jit"
    return "no-image"


env = dict(os.environ)
env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
if sys.prefix != sys.base_prefix:
    env["VIRTUAL_ENV"] = sys.prefix
p = subprocess.run([BIN, "--json", "doctor"], capture_output=True, text=True, env=env)
if p.returncode not in (0, 1):
    sys.exit(f"cudoctor doctor exited {p.returncode}: {p.stderr.strip()}")
rows = [r for r in json.loads(p.stdout).get("will_it_run", [])
        if r["framework"].startswith("torch ") and r["framework"].endswith(torch.__version__)]
check(bool(rows), f"doctor judges torch {torch.__version__} (will_it_run has its rows)")
check(any((r.get("file") or "").endswith("libtorch_cuda.so") for r in rows),
      "its verdict comes from torch/lib/libtorch_cuda.so")
for i in range(torch.cuda.device_count()):
    major, minor = torch.cuda.get_device_capability(i)
    want = expected(major, minor)
    mine = [r for r in rows if r["gpu"].startswith(f"GPU {i} ")]
    got = mine[0]["result"] if mine else None
    check(got == want, f"GPU {i} (sm_{major}{minor}): doctor says {got}, get_arch_list() {archs} says {want}")
    if want != "no-image" and mine:
        check(mine[0]["fix"] is None, f"GPU {i}: no fix offered for a torch that runs")
print(f"doctor vs torch {torch.__version__}: {len(failures)} failed")
sys.exit(1 if failures else 0)
