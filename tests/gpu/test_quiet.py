#!/usr/bin/env python3
"""GPU test for -q on the real driver: devices, topo, mem status, kb driver and lab each print
an answer (a line per GPU, pair, row or lab, then each warn or error finding as one line),
never nothing and never the full report; the GPU count and driver version agree with
nvidia-smi. Usage: test_quiet.py path/to/cudoctor"""
import re
import subprocess
import sys

FINDING = re.compile(r"^(warn|error) [a-z0-9-]+: .+$")


def run(binary, *args):
    p = subprocess.run([binary, "-q", *args], capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1):
        sys.exit(f"cudoctor -q {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    if not lines:
        sys.exit(f"cudoctor -q {' '.join(args)} printed nothing")
    for bad in ("Findings", "evidence:", "fix:", "cudoctor 0."):
        if any(l.lstrip().startswith(bad) for l in lines):
            sys.exit(f"cudoctor -q {' '.join(args)} printed the full report:\n{p.stdout}")
    return lines


def answers(lines):
    """The answer lines before the finding lines."""
    n = len(lines)
    while n and FINDING.match(lines[n - 1]):
        n -= 1
    return lines[:n]


def main():
    binary = sys.argv[1]
    smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True).stdout.split()
    n_gpus, driver = len(smi), smi[0]

    dev = answers(run(binary, "devices"))
    if len(dev) != n_gpus:
        sys.exit(f"devices -q: {len(dev)} GPU lines, nvidia-smi lists {n_gpus}:\n" + "\n".join(dev))
    for line in dev:
        if not re.match(r"^(GPU|NVML device) \d+ \(.+\): sm_\d+, [0-9.]+ [KMGT]?i?B, driver " + re.escape(driver) + "$", line):
            sys.exit(f"devices -q: unexpected line: {line}")

    topo = answers(run(binary, "topo"))
    want = ["1 GPU: no links to judge"] if n_gpus == 1 else None
    if want and topo != want:
        sys.exit(f"topo -q with one GPU: {topo}")
    if n_gpus > 1:
        if len(topo) != n_gpus * (n_gpus - 1) // 2 or not all(re.match(r"^GPU\d+ - GPU\d+: .+, P2P (yes|no|unknown)$", l) for l in topo):
            sys.exit("topo -q: not a line per pair:\n" + "\n".join(topo))

    mem = answers(run(binary, "mem", "status"))
    if len(mem) != n_gpus or not all(re.match(r"^GPU \d+ \(.+\): (used|free|memory)", l) for l in mem):
        sys.exit("mem status -q: not a line per GPU:\n" + "\n".join(mem))

    branch = driver.split(".")[0]
    kb = run(binary, "kb", "driver", driver)
    if not re.match(r"^driver " + re.escape(driver) + r": R\d+.*, CUDA (at least )?\d+\.\d+", kb[0]):
        sys.exit(f"kb driver -q: {kb}")
    if f"R{branch}" not in kb[0] and "nearest older" not in kb[0]:
        sys.exit(f"kb driver -q names another branch than R{branch}: {kb[0]}")

    lab = answers(run(binary, "lab", "hello", "--quick"))
    if len(lab) != 1 or not re.match(r"^hello: (confirmed|refuted|inconclusive|failed): .+", lab[0]):
        sys.exit(f"lab -q: {lab}")
    print("quiet: devices, topo, mem status, kb driver and lab answer on this machine")


if __name__ == "__main__":
    main()
