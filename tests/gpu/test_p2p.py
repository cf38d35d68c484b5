#!/usr/bin/env python3
"""GPU test for `cudoctor lab p2p`. With one visible GPU: the lab says there is no pair,
verdict inconclusive, exit 0. With two or more: every ordered pair has its rows, pairs that
`cudoctor topo` says can access each other have the peer rows, every rate is positive and no
faster than its link theory allows, both ways never exceed twice one way, the heat map has
one cell per pair, and no lab-wrong-result. Then compute-sanitizer memcheck over
`lab p2p --quick` with CUDOCTOR_LAB_TINY=1 must report 0 errors (skipped when
compute-sanitizer is not on PATH or in /usr/local/cuda/bin).
Usage: test_p2p.py path/to/cudoctor"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PEER_ROWS = ("CE write", "CE read", "CE both ways", "SM write", "SM read", "SM both ways")


def lab(binary, *args, env=None):
    run = subprocess.run([binary, "--json", "lab", "p2p", *args], capture_output=True, text=True, env=env,
                         timeout=600)
    try:
        doc = json.loads(run.stdout)
    except ValueError:
        raise SystemExit(f"lab p2p {' '.join(args)}: not JSON (exit {run.returncode}): {run.stderr}")
    return run.returncode, doc


def sanitizer():
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    default = "/usr/local/cuda/bin/compute-sanitizer"
    return default if os.access(default, os.X_OK) else None


def main():
    binary = os.path.realpath(sys.argv[1])
    bad = []
    plots = tempfile.mkdtemp()
    rc, doc = lab(binary, "--plot", plots)
    labs = doc.get("labs", [])
    if len(labs) != 1:
        print(f"lab p2p: {len(labs)} labs in the output; findings: {doc.get('findings')}")
        return 1
    p2p = labs[0]
    rows = {m["label"]: m["value"] for m in p2p["measurements"]}
    print(f"  lab p2p: {p2p['verdict']}: {p2p['decided'][:300]}")
    if any(f["id"] == "lab-wrong-result" for f in doc["findings"]):
        bad.append("lab-wrong-result: " + str([f for f in doc["findings"] if f["id"] == "lab-wrong-result"]))

    topo = json.loads(subprocess.run([binary, "--json", "topo"], capture_output=True, text=True).stdout)["topology"]
    cuda = [g for g in topo["gpus"] if g["cuda_ordinal"] is not None]
    visible = len(cuda)
    if visible < 2:
        if rc != 0:
            bad.append(f"one GPU: exit {rc}, want 0")
        if p2p["verdict"] != "inconclusive" or "no pair" not in p2p["decided"]:
            bad.append(f"one GPU: want inconclusive with 'no pair', got {p2p['verdict']}: {p2p['decided']}")
        if rows:
            bad.append(f"one GPU: measurements {list(rows)[:4]}")
    else:
        n = min(visible, 8)
        by_ordinal = {g["cuda_ordinal"]: g["index"] for g in cuda}
        pairs = {(p["a"], p["b"]): p for p in topo["pairs"]}
        for a in range(n):
            for b in range(n):
                if a == b:
                    continue
                tp = pairs.get((by_ordinal[a], by_ordinal[b]))
                key = f"GPU{a}->GPU{b}"
                host = rows.get(f"{key} via host")
                if not host or host <= 0:
                    bad.append(f"{key}: no host-path row")
                can = tp and tp["cuda"] and tp["cuda"].get("can_access_peer") and \
                    pairs[(by_ordinal[b], by_ordinal[a])]["cuda"].get("can_access_peer")
                if not can:
                    continue
                for r in PEER_ROWS:
                    if rows.get(f"{key} {r}", 0) <= 0:
                        bad.append(f"{key} {r}: missing or not positive")
                theory = tp["theory"]["gbs_per_direction"] if tp.get("theory") else None
                one_way = max(rows.get(f"{key} {r}", 0) for r in ("CE write", "CE read", "SM write", "SM read"))
                if theory and one_way > 1.05 * theory:
                    bad.append(f"{key}: {one_way:.1f} GB/s above the {theory} GB/s link")
                for kind in ("CE", "SM"):
                    both, one = rows.get(f"{key} {kind} both ways", 0), rows.get(f"{key} {kind} write", 0)
                    if one and both > 1.05 * one:
                        bad.append(f"{key} {kind}: {both:.1f} GB/s each way at once above {one:.1f} one way")
                for lat in [l for l in rows if l.startswith(f"{key} ") and "latency" in l]:
                    if not 0 < rows[lat] < 1000:
                        bad.append(f"{lat}: {rows[lat]} us")
                print(f"  {key} [{tp['link']}]: CE {rows.get(key + ' CE write', 0):.1f} / SM "
                      f"{rows.get(key + ' SM write', 0):.1f} / host {host or 0:.1f} GB/s; theory {theory}")
        svg_path = os.path.join(plots, "p2p.svg")
        if not os.path.exists(svg_path):
            bad.append("no p2p.svg heat map")
        else:
            svg = open(svg_path).read()
            cells = len(re.findall(r"<rect x=\"\d+\" y=\"\d+\" width=\"64\"", svg))
            if cells != n * n:
                bad.append(f"heat map: {cells} cells, want {n * n}")
    shutil.rmtree(plots, ignore_errors=True)

    cs = sanitizer()
    if cs:
        env = dict(os.environ, CUDOCTOR_LAB_TINY="1")
        run = subprocess.run([cs, "--tool", "memcheck", "--error-exitcode", "3", binary, "lab", "p2p", "--quick"],
                             capture_output=True, text=True, env=env, timeout=600)
        summary = re.findall(r"ERROR SUMMARY: (\d+) error", run.stdout + run.stderr)
        print(f"  compute-sanitizer memcheck lab p2p --quick: exit {run.returncode}, summary {summary}")
        if run.returncode == 3 or not summary or summary[-1] != "0":
            bad.append("memcheck: " + (run.stdout + run.stderr)[-2000:])
    else:
        print("  compute-sanitizer not found: memcheck skipped")

    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
