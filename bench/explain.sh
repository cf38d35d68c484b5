#!/bin/sh
# bench/explain.sh [SIZE_MB]: `cudoctor explain` reading a training log of SIZE_MB (default 1024)
# from stdin, against `grep -c` of one pattern over the same file, in the same run, warm page
# cache, best of RUNS (default 3). The log is made here (bench/make_log.py): progress lines,
# NCCL INFO lines, framework warnings that mention CUDA, a few CUDA errors spread through it.
# Prints the seconds, MB/s and peak RSS of each, and the ratio. Run by hand.
# CUDOCTOR=path/to/cudoctor (default build/cudoctor); LOG=path (default /tmp/cudoctor_bench.log).
set -u
here=$(dirname "$0")
bin=${CUDOCTOR:-build/cudoctor}
runs=${RUNS:-3}
mb=${1:-1024}
log=${LOG:-/tmp/cudoctor_bench.log}
if [ ! -f "$log" ] || [ $(( $(stat -c %s "$log") / 1048576 )) -ne "$mb" ]; then
	python3 "$here/make_log.py" "$mb" "$log" || exit 1
fi
cat "$log" >/dev/null
set -- $(python3 "$here/measure.py" "$runs" grep -c "out of memory" "$log"); g=$1; grss=$2
set -- $(python3 "$here/measure.py" "$runs" sh -c "\"$bin\" explain --offline --json <\"$log\""); e=$1; erss=$2
python3 - "$mb" "$g" "$grss" "$e" "$erss" <<'PY'
import sys
mb, g, grss, e, erss = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
print("%-26s %10s %10s %10s" % ("", "seconds", "MB/s", "peak MB"))
print("%-26s %10.3f %10.0f %10.1f" % ("grep -c 'out of memory'", g, mb / g, grss / 1024))
print("%-26s %10.3f %10.0f %10.1f" % ("cudoctor explain", e, mb / e, erss / 1024))
print("explain / grep: %.2fx the time" % (e / g))
PY
