#!/usr/bin/env python3
"""GPU test for `cudoctor topo`: every cell of `nvidia-smi topo -m` (GPU-GPU links, GPU-NIC
paths, CPU and NUMA affinity) and of `nvidia-smi topo -p2p r` / `-p2p w` must match what
`cudoctor --json topo` reports. Works with one GPU (the per-GPU columns, no pair) and more.
Usage: test_topo.py path/to/cudoctor"""
import json
import re
import subprocess
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# nvidia-smi topo -p2p legend -> NVML's nvmlGpuP2PStatus_t in cudoctor's words
P2P = {"OK": "OK", "CNS": "chipset not supported", "GNS": "GPU not supported",
       "TNS": "IOH topology not supported", "NS": "not supported", "U": "unknown"}


def smi(*args):
    out = subprocess.run(["nvidia-smi", "topo", *args], capture_output=True, text=True, check=True).stdout
    return ANSI.sub("", out)


def matrix(text):
    """Rows of the first table: {row label: {column label: cell}}."""
    lines = [l for l in text.splitlines()]
    head = None
    rows = {}
    for line in lines:
        if not line.strip():
            if head is not None and rows:
                break
            continue
        cells = [c.strip() for c in line.split("\t")]
        if head is None:
            if cells and cells[0] == "" and any(c.startswith("GPU") for c in cells):
                head = cells
            continue
        if not re.match(r"^(GPU|NIC)\d+$", cells[0]):
            break
        rows[cells[0]] = {head[i]: cells[i] if i < len(cells) else "" for i in range(1, len(head))}
    if head is None:
        raise SystemExit("could not find the matrix in nvidia-smi's output:\n" + text)
    return rows


def main():
    binary = sys.argv[1]
    run = subprocess.run([binary, "--json", "topo"], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        print(f"cudoctor topo exited {run.returncode}: {run.stderr}")
        return 1
    topo = json.loads(run.stdout)["topology"]
    gpus = topo["gpus"]
    pairs = {(p["a"], p["b"]): p for p in topo["pairs"]}
    nics = topo["nics"]
    m = matrix(smi("-m"))
    bad = []

    def check(where, want, got):
        if want != got:
            bad.append(f"{where}: nvidia-smi {want!r}, cudoctor {got!r}")

    smi_gpus = sorted(k for k in m if k.startswith("GPU"))
    check("GPU count", len(smi_gpus), len(gpus))
    for i, g in enumerate(gpus):
        row = m.get(f"GPU{i}")
        if row is None:
            continue
        for j in range(len(gpus)):
            want = row.get(f"GPU{j}", "?")
            got = "X" if i == j else pairs[(i, j)]["link"]
            check(f"GPU{i}/GPU{j}", want, got)
        for k, nic in enumerate(nics):
            if f"NIC{k}" in row:
                check(f"GPU{i}/NIC{k} ({nic['name']})", row[f"NIC{k}"], nic["gpus"][i])
        cpu = row.get("CPU Affinity", "N/A")
        check(f"GPU{i} CPU Affinity", cpu, g["cpu_affinity"] if g["cpu_affinity"] else "N/A")
        numa = row.get("NUMA Affinity", "N/A")
        check(f"GPU{i} NUMA Affinity", numa, str(g["numa_node"]) if g["numa_node"] is not None else "N/A")
    smi_nics = sorted(k for k in m if k.startswith("NIC"))
    check("NIC count", len(smi_nics), len(nics))

    if len(gpus) > 1:
        for cap, key in (("r", "read"), ("w", "write")):
            pm = matrix(smi("-p2p", cap))
            for (a, b), p in pairs.items():
                want = pm.get(f"GPU{a}", {}).get(f"GPU{b}", "?")
                check(f"-p2p {cap} GPU{a}/GPU{b}", P2P.get(want, want), p["nvml_p2p"][key])
    else:
        if topo["pairs"]:
            bad.append("one GPU but pairs reported")
        text = subprocess.run([binary, "--color=never", "topo"], capture_output=True, text=True).stdout
        if "no pair: 1 GPU" not in text:
            bad.append("one GPU: the text does not say 'no pair'")

    for b in bad:
        print("  " + b)
    print(f"topo: {len(gpus)} GPU(s), {len(nics)} NIC(s), {len(bad)} mismatching cell(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
