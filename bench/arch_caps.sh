#!/bin/sh
# bench/arch_caps.sh FILE...: what finding the GPUs costs `cudoctor arch`, on a GPU machine.
# Per file, best of RUNS (default 5), warm page cache: arch with the GPUs of this machine
# (the kernel module's /proc files, no library), the same with /proc hidden (NVML, no
# cuInit), with /proc and NVML hidden (libcuda's cuInit), arch with --gpu/--driver (no driver
# library at all), and cuobjdump --list-elf --list-ptx once, in the same run.
# CUDOCTOR=path/to/cudoctor (default build/cudoctor). Run by hand.
set -u
here=$(dirname "$0")
bin=${CUDOCTOR:-build/cudoctor}
runs=${RUNS:-5}
m() { python3 "$here/measure.py" "$@"; }
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)
"$bin" arch --json "$1" 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print("GPUs:", [g["gpu"] for g in j["gpus"]], "driver:", j["driver"])'
printf '%-28s %10s %10s %12s %10s %10s %10s\n' file proc_s nvml_s cuinit_s named_s cuobj_s cuobj/proc
for f in "$@"; do
	[ -f "$f" ] || continue
	cat "$f" >/dev/null
	set -- $(m "$runs" "$bin" arch "$f"); a=$1
	set -- $(m "$runs" env CUDOCTOR_HOST_ROOT=/nonexistent "$bin" arch "$f"); nv=$1
	set -- $(m "$runs" env CUDOCTOR_HOST_ROOT=/nonexistent CUDOCTOR_LIBNVML=/nonexistent "$bin" arch "$f"); ci=$1
	set -- $(m "$runs" "$bin" arch --gpu 9.0 --driver 13.0 "$f"); nm=$1
	if [ -n "$cuobjdump" ]; then
		set -- $(m 1 "$cuobjdump" --list-elf --list-ptx "$f"); c=$1
	else
		c=nan
	fi
	python3 -c 'import sys,os; f,a,nv,ci,nm,c=sys.argv[1:]; a,nv,ci,nm,c=map(float,(a,nv,ci,nm,c)); print("%-28s %10.4f %10.4f %12.4f %10.4f %10.3f %10s" % (os.path.basename(f)[:28], a, nv, ci, nm, c, ("%.0fx" % (c/max(a,1e-4))) if c==c else "-"))' "$f" "$a" "$nv" "$ci" "$nm" "$c"
done
