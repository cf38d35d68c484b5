#!/usr/bin/env python3
"""measure.py RUNS CMD...: runs CMD RUNS times (output discarded) and prints
"best_seconds max_rss_kb best_cpu_seconds": the fastest run's wall time and peak RSS, and
the least user+sys CPU time of any run, from wait4's per-child rusage. CPU time is the
steadier measure on a loaded machine (it does not count the time spent waiting for a core)."""
import os, subprocess, sys, time

runs = int(sys.argv[1])
cmd = sys.argv[2:]
best = None
best_cpu = None
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    cpu = ru.ru_utime + ru.ru_stime
    if best is None or dt < best[0]:
        best = (dt, ru.ru_maxrss)
    if best_cpu is None or cpu < best_cpu:
        best_cpu = cpu
print("%.4f %d %.4f" % (best[0], best[1], best_cpu))
