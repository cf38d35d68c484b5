#!/usr/bin/env python3
"""measure.py RUNS CMD...: runs CMD RUNS times (output discarded) and prints
"best_seconds max_rss_kb" of the fastest run, using wait4's per-child rusage."""
import os, subprocess, sys, time

runs = int(sys.argv[1])
cmd = sys.argv[2:]
best = None
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    if best is None or dt < best[0]:
        best = (dt, ru.ru_maxrss)
print("%.4f %d" % best)
