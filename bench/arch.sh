#!/bin/sh
# bench/arch.sh FILE...: `cudoctor arch` against `cuobjdump --list-elf --list-ptx` (when
# installed) and against reading the file (md5sum), on the same files, warm page cache.
# Prints one row per file: seconds and peak RSS of each, and the ratios. Run by hand.
# CUDOCTOR=path/to/cudoctor (default build/cudoctor); RUNS=best-of count (default 5);
# ARCH_ARGS: what arch judges against (default "--gpu 9.0 --driver 13.0"; "" = the GPUs and
# driver of this machine, found through NVML or libcuda).
set -u
here=$(dirname "$0")
bin=${CUDOCTOR:-build/cudoctor}
runs=${RUNS:-5}
arch_args=${ARCH_ARGS---gpu 9.0 --driver 13.0}
m() { python3 "$here/measure.py" "$@"; }
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)
printf '%-28s %9s %10s %9s %9s %10s %9s %9s %10s %8s %8s\n' file MB md5_s arch_s arch_MB arch_cuobj_s cuobj_s cuobj_MB \
	vs_cuobj vs_md5 cuobj_MB/arch_MB
for f in "$@"; do
	[ -f "$f" ] || continue
	cat "$f" >/dev/null # warm the page cache
	size=$(( $(stat -c %s "$f") / 1048576 ))
	set -- $(m "$runs" md5sum "$f"); md5=$1
	set -- $(m "$runs" "$bin" arch "$f" $arch_args); a=$1; arss=$2
	set -- $(m "$runs" "$bin" arch --cuobjdump "$f"); ac=$1
	if [ -n "$cuobjdump" ]; then
		set -- $(m 1 "$cuobjdump" --list-elf --list-ptx "$f"); c=$1; crss=$2
	else
		c=nan; crss=0
	fi
	python3 - "$f" "$size" "$md5" "$a" "$arss" "$ac" "$c" "$crss" <<'PY'
import sys, os
f, size, md5, a, arss, ac, c, crss = sys.argv[1:]
a, ac, md5, c = float(a), float(ac), float(md5), float(c)
arss, crss = int(arss), int(crss)
fl = lambda x: max(x, 1e-4)
vs = "%.0fx" % (c / fl(ac)) if c == c else "-"
print("%-28s %9s %10.4f %9.4f %9.1f %10.4f %9.3f %9.1f %10s %8.1fx %8s" % (
    os.path.basename(f)[:28], size, md5, a, arss / 1024, ac, c, crss / 1024, vs, md5 / fl(a),
    ("%.0fx" % (crss / max(arss, 1))) if crss else "-"))
PY
done
