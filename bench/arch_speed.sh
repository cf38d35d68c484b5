#!/bin/sh
# bench/arch_speed.sh FILE...: `cudoctor arch` (its default report and --json) against
# `cuobjdump --list-elf --list-ptx` and `md5sum` (reading every byte once) on the same files,
# in the same run, warm page cache (each file read once first). Prints one row per file: the
# best wall time and the least user+sys CPU time of RUNS runs (default 10; cuobjdump
# CUOBJ_RUNS, default 3; md5sum MD5_RUNS, default 3), in ms, and the ratios cuobjdump / arch
# and md5sum / arch, by wall time and by CPU time (the steadier one on a loaded machine).
# Run by hand. CUDOCTOR=path/to/cudoctor (default build/cudoctor); CUOBJDUMP (default: on
# PATH, else /usr/local/cuda/bin/cuobjdump; "none": not run); ARCH_ARGS: what arch judges
# against (default "--gpu 9.0 --driver 13.0", so no driver is asked).
set -u
here=$(dirname "$0")
bin=${CUDOCTOR:-build/cudoctor}
runs=${RUNS:-10}
cruns=${CUOBJ_RUNS:-3}
mruns=${MD5_RUNS:-3}
arch_args=${ARCH_ARGS---gpu 9.0 --driver 13.0}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)}
[ "$cuobjdump" = none ] && cuobjdump=
m() { python3 "$here/measure.py" "$@"; }
echo "# $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# arch: $bin arch FILE $arch_args (and --json), best of $runs; md5sum best of $mruns; cuobjdump --list-elf --list-ptx best of $cruns: ${cuobjdump:-not run}"
echo "# times in ms: wall/cpu (cpu = user+sys); x = cuobjdump/arch and md5sum/arch, wall/cpu"
printf '%-36s %5s %15s %15s %17s %15s %13s %11s\n' file MB arch arch_json cuobjdump md5sum x_cuobjdump x_md5sum
for f in "$@"; do
	[ -f "$f" ] || continue
	cat "$f" >/dev/null # warm the page cache
	set -- $(m "$runs" "$bin" arch "$f" $arch_args); aw=$1; ac=$3
	set -- $(m "$runs" "$bin" --json arch "$f" $arch_args); jw=$1; jc=$3
	set -- $(m "$mruns" md5sum "$f"); mw=$1; mc=$3
	if [ -n "$cuobjdump" ]; then
		set -- $(m "$cruns" "$cuobjdump" --list-elf --list-ptx "$f"); cw=$1; cc=$3
	else
		cw=nan; cc=nan
	fi
	python3 - "$f" "$aw" "$ac" "$jw" "$jc" "$cw" "$cc" "$mw" "$mc" <<'PY'
import os, sys
f = sys.argv[1]
aw, ac, jw, jc, cw, cc, mw, mc = (float(x) for x in sys.argv[2:])
ms = lambda w, c: "%.1f/%.1f" % (w * 1e3, c * 1e3)
r = lambda x, y: "%.0f" % (x / max(y, 1e-4)) if x == x else "-"
print("%-36s %5d %15s %15s %17s %15s %13s %11s" % (
    os.path.basename(f)[:36], os.path.getsize(f) // 1000000, ms(aw, ac), ms(jw, jc), ms(cw, cc), ms(mw, mc),
    "%s/%s" % (r(cw, aw), r(cc, ac)), "%s/%s" % (r(mw, aw), r(mc, ac))))
PY
done
