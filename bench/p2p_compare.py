#!/usr/bin/env python3
"""cudoctor lab p2p --json against nvbandwidth and p2pBandwidthLatencyTest, cell by cell.

Usage: p2p_compare.py DIR    (the --out directory of bench/multigpu.sh: cudoctor-lab-p2p.json,
nvbandwidth-<testcase>.txt, p2pBandwidthLatencyTest.txt). Prints one line per pair and
direction and a summary; exit 1 when a bandwidth is under 97% of nvbandwidth's or a 4-byte
latency is more than 10% away from p2pBandwidthLatencyTest's, 2 when an input is missing.

Which cudoctor row each peer cell is (nvbandwidth's README and testcases: read tests copy
from the column GPU into the row GPU with the row's context; SM bidirectional reports the sum
of both streams, CE bidirectional the measured stream only; p2pBandwidthLatencyTest issues
copy i -> j on GPU i's stream and sums both directions in its bidirectional matrix):
"""
import json
import os
import re
import sys

BW_FLOOR = 0.97
LAT_BAND = 0.10

# testcase -> (cudoctor rows for cell (r, c), gated)
NVBW = {
    "device_to_device_memcpy_write_ce": (lambda r, c: [f"GPU{r}->GPU{c} CE write"], True),
    "device_to_device_memcpy_read_ce": (lambda r, c: [f"GPU{c}->GPU{r} CE read"], True),
    "device_to_device_bidirectional_memcpy_write_ce": (lambda r, c: [f"GPU{r}->GPU{c} CE both ways"], True),
    "device_to_device_memcpy_write_sm": (lambda r, c: [f"GPU{r}->GPU{c} SM write"], True),
    "device_to_device_memcpy_read_sm": (lambda r, c: [f"GPU{c}->GPU{r} SM read"], True),
    "device_to_device_bidirectional_memcpy_write_sm":
        (lambda r, c: [f"GPU{r}->GPU{c} SM both ways", f"GPU{c}->GPU{r} SM both ways"], True),
    # cudoctor runs both ways as writes only: these two have no counterpart
    "device_to_device_bidirectional_memcpy_read_ce": (None, False),
    "device_to_device_bidirectional_memcpy_read_sm": (None, False),
}
P2P = [  # (title pattern, rows for cell (r, c), what is gated: "bw", "lat" or None)
    (r"Unidirectional P2P=Enabled Bandwidth", lambda r, c: [f"GPU{r}->GPU{c} CE write"], None),
    (r"Bidirectional P2P=Enabled Bandwidth",
     lambda r, c: [f"GPU{r}->GPU{c} CE both ways", f"GPU{c}->GPU{r} CE both ways"], None),
    (r"Unidirectional P2P=Disabled Bandwidth", lambda r, c: [f"GPU{r}->GPU{c} via host"], None),
    (r"P2P=Enabled Latency", lambda r, c: [f"GPU{r}->GPU{c} CE latency 4 B"], "lat"),
]


def matrices(path):
    """[(title, {(row, col): value})] from nvbandwidth or p2pBandwidthLatencyTest text; only
    GPU rows (p2pBandwidthLatencyTest's latency tables repeat a CPU block after a CPU header)."""
    out, title, cols, tag, cells = [], None, None, "", {}
    for line in open(path, errors="replace"):
        f = line.split()
        if re.search(r"\((GB/s|us)\)\s*$", line.strip()):
            if title and cells:
                out.append((title, cells))
            title, cols, tag, cells = line.strip(), None, "", {}
            continue
        if title is None:
            continue
        if not f:
            if cells:
                out.append((title, cells))
                title, cells = None, {}
            continue
        if len(f) >= 2 and all(x.isdigit() for x in f[1:]) and not f[0].isdigit():
            cols, tag = [int(x) for x in f[1:]], f[0]          # "D\D 0 1", "GPU 0 1", "CPU 0 1"
            continue
        if cols is None and all(x.isdigit() for x in f):
            cols, tag = [int(x) for x in f], ""                # nvbandwidth: "0 1"
            continue
        if cols and f[0].isdigit() and tag != "CPU":
            for c, v in zip(cols, f[1:]):
                try:
                    cells[(int(f[0]), c)] = float(v)
                except ValueError:
                    pass                                       # N/A
    if title and cells:
        out.append((title, cells))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    try:
        doc = json.load(open(os.path.join(out, "cudoctor-lab-p2p.json")))
        lab = [l for l in doc["labs"] if l["name"] == "p2p"][0]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"p2p compare: no cudoctor lab p2p JSON in {out} ({e})")
        return 2
    mine = {m["label"]: m["value"] for m in lab["measurements"]}
    print(f"cudoctor lab p2p: {lab['verdict']}: {lab['decided']}")
    if not mine:
        print("p2p compare: cudoctor measured no pair")
        return 0
    low, compared = [], 0

    def compare(src, what, r, c, theirs, rows, gate):
        nonlocal compared
        if r == c:
            return
        vals = [mine.get(x) for x in rows]
        if any(v is None for v in vals):
            print(f"{src} {what} {r}->{c}: {theirs:.2f}; cudoctor has no {' + '.join(rows)}")
            return
        v = sum(vals)
        ratio = v / theirs if theirs else float("inf")
        ok = True
        if gate == "bw":
            ok = ratio >= BW_FLOOR
        elif gate == "lat":
            ok = abs(ratio - 1) <= LAT_BAND
        compared += gate is not None
        mark = "" if gate is None else (" ok" if ok else " OUT")
        print(f"{src} {what} cell {r},{c}: cudoctor {v:.2f} ({' + '.join(rows)}) / {theirs:.2f} = {100 * ratio:.1f}%{mark}")
        if not ok:
            low.append(f"{src} {what} {r},{c}: {100 * ratio:.1f}%")

    for test, (rows, gated) in NVBW.items():
        path = os.path.join(out, f"nvbandwidth-{test}.txt")
        if not os.path.exists(path):
            print(f"nvbandwidth {test}: not run")
            continue
        mats = matrices(path)
        if not mats:
            print(f"nvbandwidth {test}: no matrix in {path}")
            continue
        title, cells = next(((t, m) for t, m in mats if t.lower().startswith("total")), mats[0])
        if rows is None:
            print(f"nvbandwidth {test}: no cudoctor counterpart (both ways are measured as writes)")
            continue
        for (r, c), v in sorted(cells.items()):
            compare("nvbandwidth", test, r, c, v, rows(r, c), "bw" if gated else None)
    path = os.path.join(out, "p2pBandwidthLatencyTest.txt")
    if os.path.exists(path):
        for title, cells in matrices(path):
            for pat, rows, gate in P2P:
                if re.search(pat, title):
                    for (r, c), v in sorted(cells.items()):
                        compare("p2pBandwidthLatencyTest", pat, r, c, v, rows(r, c), gate)
    else:
        print("p2pBandwidthLatencyTest: not run")
    print(f"p2p compare: {compared} gated cells, {len(low)} outside the target "
          f"(bandwidth >= {100 * BW_FLOOR:.0f}% of nvbandwidth, 4 B latency within {100 * LAT_BAND:.0f}%)")
    for l in low:
        print("  OUT:", l)
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
