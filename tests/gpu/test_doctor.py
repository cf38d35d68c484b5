#!/usr/bin/env python3
"""GPU test for `cudoctor doctor`: its JSON against the ground truth on a real machine.

Driver version and GPUs against nvidia-smi, the "CUDA Version" header against
driver.cuda_version, the kernel module against /proc/driver/nvidia/version, the selected nvcc
against `which nvcc` and `nvcc --version`, torch against an imported torch, and the libcudart
torch really maps (/proc/self/maps after torch.cuda.init()) against the runtimes listed.
Prints what it compared; exits 1 on the first disagreement. Usage: test_doctor.py CUDOCTOR
"""
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/cudoctor"
    r = run([binary, "--json", "doctor"])
    doc = json.loads(r.stdout)
    errors = [f for f in doc["findings"] if f["severity"] == "error"]
    check(r.returncode == (1 if errors else 0), f"exit status {r.returncode} matches {len(errors)} error findings")
    for f in doc["findings"]:
        print(f"        finding {f['severity']} {f['id']}: {f['title']}")
    drv = doc["driver"]
    check(drv["loaded"], f"libcuda loaded from {drv['library_path']}")

    smi = run(["nvidia-smi", "--query-gpu=name,driver_version,pci.bus_id,uuid,compute_cap",
               "--format=csv,noheader"]).stdout.strip().splitlines()
    rows = [[c.strip() for c in line.split(",")] for line in smi if line.strip()]
    check(len(rows) > 0, f"nvidia-smi lists {len(rows)} GPU(s)")
    if rows:
        check(drv["version"] == rows[0][1], f"driver version {drv['version']} == nvidia-smi {rows[0][1]}")
    by_uuid = {g["uuid"]: g for g in doc["gpus"]}
    for name, _, bus, uuid, cc in rows:
        g = by_uuid.get(uuid)
        check(g is not None, f"GPU {uuid} listed")
        if g is None:
            continue
        check(g["name"] == name, f"name {g['name']!r} == {name!r}")
        check(g["compute_capability"] == cc, f"compute capability {g['compute_capability']} == {cc}")
        check(g["pci_bus_id"].lower()[-12:] == bus.lower()[-12:], f"PCI bus {g['pci_bus_id']} == {bus}")

    header = run(["nvidia-smi"]).stdout
    m = re.search(r"CUDA(?: UMD)? Version:\s*([0-9]+\.[0-9]+)", header)
    if m:
        check(drv["cuda_version"] == m.group(1), f"cuda_version {drv['cuda_version']} == nvidia-smi header {m.group(1)}")

    if os.path.exists("/proc/driver/nvidia/version"):
        text = open("/proc/driver/nvidia/version").read()
        km = re.search(r"Kernel Module(?: for \S+)?\s+([0-9]+\.[0-9.]+)", text)
        if km:
            check(drv["kernel_module_version"] == km.group(1),
                  f"kernel module {drv['kernel_module_version']} == /proc {km.group(1)}")

    nvcc = shutil.which("nvcc")
    selected = [t for t in doc["toolkits"] if t["selected"]]
    if nvcc:
        sel = selected[0]["nvcc"] if selected else None
        check(sel is not None and os.path.normpath(sel) == os.path.normpath(nvcc),
              f"selected nvcc {sel} == which nvcc {nvcc}")
        out = run([nvcc, "--version"]).stdout
        rel = re.search(r"release ([0-9]+\.[0-9]+)", out)
        if rel and selected:
            check(selected[0]["version"].startswith(rel.group(1)),
                  f"selected nvcc version {selected[0]['version']} is release {rel.group(1)}")
    else:
        check(not selected, "no nvcc on PATH, none selected")

    probe = ("import torch, sys\n"
             "print(torch.__version__); print(torch.version.cuda); print(torch.__file__)\n"
             "torch.cuda.init()\n"
             "for line in open('/proc/self/maps'):\n"
             "    if 'libcudart' in line: print('MAP', line.split()[-1])\n")
    t = run([sys.executable, "-c", probe])
    if t.returncode == 0:
        lines = t.stdout.splitlines()
        version, cuda, path = lines[0], lines[1], lines[2]
        fws = [f for f in doc["python"]["frameworks"] if f["name"] == "torch"
               and os.path.realpath(f["path"]) == os.path.realpath(os.path.dirname(path))]
        check(len(fws) == 1, f"torch at {os.path.dirname(path)} listed")
        if fws:
            check(fws[0]["version"] == version, f"torch version {fws[0]['version']} == {version}")
            check(fws[0]["cuda"] == (cuda if cuda != "None" else None), f"torch cuda {fws[0]['cuda']} == {cuda}")
        maps = {os.path.realpath(l.split(" ", 1)[1]) for l in lines if l.startswith("MAP ")}
        listed = {os.path.realpath(x["real_path"]) for x in doc["runtimes"]}
        for m in maps:
            check(m in listed, f"libcudart torch maps ({m}) is among the runtimes listed")
    else:
        print("  skip  torch not importable here")

    if failures:
        print(f"{len(failures)} disagreement(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
