#!/usr/bin/env python3
"""GPU test for `cudoctor plan` (usage: test_plan.py CUDOCTOR).

Against the PyTorch installed here (python3 -c 'import torch'):
1. torch.cuda.get_arch_list() covers this GPU (its sm_XY, or a lower minor of its major);
2. `cudoctor --json plan --framework torch==X.Y` (the GPUs and driver here) lists the
   installed wheel's variant (cu + torch.version.cuda) as runnable, with a fit for GPU 0;
3. kb/torch.tsv's arch list for that release and variant equals the wheel's own sm_ list.
Exit 0 when every check passed; prints one line per check."""
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


def cudoctor(*args):
    p = subprocess.run([BIN, "--json", *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"cudoctor {' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


try:
    import torch
except ImportError:
    sys.exit("PyTorch is not installed here: pip install torch (see `cudoctor plan`)")
if not torch.cuda.is_available() or torch.version.cuda is None:
    sys.exit("the installed PyTorch has no CUDA or sees no GPU")

major, minor = torch.cuda.get_device_capability(0)
arch_list = torch.cuda.get_arch_list()
sms = sorted(int(a[3:]) for a in arch_list if re.fullmatch(r"sm_\d+", a))
release = re.match(r"(\d+)\.(\d+)\.(\d+)", torch.__version__)
variant = "cu" + torch.version.cuda.replace(".", "")
print(f"torch {torch.__version__} ({variant}), GPU 0 sm_{major}{minor}, arch list {arch_list}")

cc = major * 10 + minor
check(cc in sms or any(s // 10 == major and s <= cc for s in sms),
      f"torch.cuda.get_arch_list() covers sm_{cc}")

rel = f"{release.group(1)}.{release.group(2)}"
plan = cudoctor("plan", "--framework", f"torch=={rel}")
rows = [b for b in plan.get("torch_builds", []) if b["variant"] == variant]
check(bool(rows), f"plan lists torch {rel} {variant}")
if rows:
    b = rows[0]
    check(b["runnable"], f"plan says torch {b['release']} {variant} runs here (driver: {b['driver']})")
    check(b["gpus"][0]["fit"] in ("sass", "sass-compat", "ptx"),
          f"plan's fit for GPU 0: {b['gpus'][0]['fit']} via {b['gpus'][0]['via']}")
    kb = cudoctor("kb", "torch", variant)
    kb_rows = [k for k in kb["torch"] if k["release"].startswith(rel + ".")]
    if kb_rows:
        table = sorted(int(t[3:]) for t in kb_rows[0]["archs"].split() if t.startswith("sm_"))
        check(table == sms, f"kb/torch.tsv {kb_rows[0]['release']} {variant} archs {table} == wheel's {sms}")
print(json.dumps({"torch": torch.__version__, "variant": variant, "arch_list": arch_list,
                  "plan_torch": plan.get("torch")}, indent=1))
sys.exit(1 if failures else 0)
