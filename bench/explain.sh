#!/bin/sh
# bench/explain.sh [SIZE_MB]: `cudoctor explain` reading a training log of SIZE_MB (default 1024)
# from stdin, against two greps over the same file, in the same run, warm page cache, best of
# RUNS (default 3): `grep -c 'out of memory'` (one fixed string: memchr speed), and the fairer
# `grep -c -i -F -f PATTERNS` with explain's own pattern set (`cudoctor explain --patterns`),
# which has to look for every string explain looks for. The log is made here
# (bench/make_log.py): progress lines, NCCL INFO lines, framework warnings that mention CUDA,
# a few CUDA errors spread through it. Prints the seconds, MB/s and peak RSS of each, and both
# ratios; explain runs as it does by default (its first stage on threads beside the line rules,
# docs/explain.md) and on one thread (CUDOCTOR_EXPLAIN_THREADS=0). Run by hand.
# CUDOCTOR=path/to/cudoctor (default build/cudoctor); LOG=path (default /tmp/cudoctor_bench.log).
set -u
here=$(dirname "$0")
bin=${CUDOCTOR:-build/cudoctor}
runs=${RUNS:-3}
mb=${1:-1024}
log=${LOG:-/tmp/cudoctor_bench.log}
pats=$(mktemp); trap 'rm -f "$pats"' EXIT
if [ ! -f "$log" ] || [ $(( $(stat -c %s "$log") / 1048576 )) -ne "$mb" ]; then
	python3 "$here/make_log.py" "$mb" "$log" || exit 1
fi
"$bin" explain --patterns >"$pats" || exit 1
cat "$log" >/dev/null
# grep's output goes to a pipe: with stdout on /dev/null GNU grep stops at the first match,
# even with -c, and would be timed over part of the file
set -- $(python3 "$here/measure.py" "$runs" sh -c "grep -c 'out of memory' \"$log\" | cat"); g=$1; grss=$2
set -- $(python3 "$here/measure.py" "$runs" sh -c "grep -c -i -F -f \"$pats\" \"$log\" | cat"); f=$1; frss=$2
set -- $(python3 "$here/measure.py" "$runs" sh -c "\"$bin\" explain --offline --json <\"$log\""); e=$1; erss=$2
set -- $(python3 "$here/measure.py" "$runs" sh -c "CUDOCTOR_EXPLAIN_THREADS=0 \"$bin\" explain --offline --json <\"$log\""); e1=$1; e1rss=$2
python3 - "$mb" "$g" "$grss" "$f" "$frss" "$e" "$erss" "$e1" "$e1rss" "$(wc -l <"$pats")" "$(nproc)" <<'PY'
import sys
mb = float(sys.argv[1])
g, f, e, e1 = (float(x) for x in sys.argv[2:9:2])
grss, frss, erss, e1rss = (int(x) for x in sys.argv[3:10:2])
print("%-40s %10s %10s %10s" % ("", "seconds", "MB/s", "peak MB"))
print("%-40s %10.3f %10.0f %10.1f" % ("grep -c 'out of memory'", g, mb / g, grss / 1024))
print("%-40s %10.3f %10.0f %10.1f" % ("grep -c -i -F -f PATTERNS (%s)" % sys.argv[10], f, mb / f, frss / 1024))
print("%-40s %10.3f %10.0f %10.1f" % ("cudoctor explain (%s CPUs)" % sys.argv[11], e, mb / e, erss / 1024))
print("%-40s %10.3f %10.0f %10.1f" % ("cudoctor explain, one thread", e1, mb / e1, e1rss / 1024))
print("explain / grep one string: %.2fx the time" % (e / g))
print("explain / grep -F -f its patterns: %.2fx the time (one thread: %.2fx)" % (e / f, e1 / f))
PY
