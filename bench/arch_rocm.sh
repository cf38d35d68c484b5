#!/bin/sh
# arch_rocm.sh [BUILD] [RUNS]: `cudoctor arch` on AMD device code against LLVM 22's
# `llvm-readobj --offloading` and `md5sum` (reading every byte once) on the same files, in the
# same run, warm (one untimed run each first), RUNS runs each (default 5), the median in
# milliseconds; and whether `arch --llvm-offloading` printed what llvm-readobj printed.
# Files: the largest ROCm library on the package index that cudoctor's tests know,
# jax-rocm7-pjrt 0.10.0's xla_rocm_plugin.so (520 MB, compressed bundles) and jax-rocm60-pjrt
# 0.5.0's (560 MB, plain bundles), fetched member by member by tests/wheels/fetch_member.py,
# and the jax-rocm7-plugin 0.10.0 wheel (tests/wheels/rocm_files.py), all cached in
# ~/.cache/cudoctor-test. Writes bench/results/arch_rocm_HOST.md and prints it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$here/build}
RUNS=${2:-5}
C=${HOME:-/tmp}/.cache/cudoctor-test
READOBJ=${READOBJ:-/usr/lib/llvm-22/bin/llvm-readobj}
python3 "$here/tests/wheels/fetch_member.py" jax-rocm7-pjrt 0.10.0 manylinux_2_28_x86_64 "$C/rocm-pjrt7" \
	jax_plugins/xla_rocm7/xla_rocm_plugin.so >/dev/null
python3 "$here/tests/wheels/fetch_member.py" jax-rocm60-pjrt 0.5.0 manylinux_2_28_x86_64 "$C/rocm-pjrt60" \
	jax_plugins/xla_rocm60/xla_rocm_plugin.so >/dev/null
WHEEL=$(python3 "$here/tests/wheels/rocm_files.py" "$C/rocm" | awk -F'\t' '$1 == "rocm7" { print $2 }')

# median wall time of RUNS runs of "$@", in ms (the command's output discarded)
ms() {
	"$@" >/dev/null 2>&1 || true
	i=0
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

out=$here/bench/results/arch_rocm_$(hostname).md
{
	echo "# arch vs llvm-readobj --offloading vs md5sum on ROCm libraries, $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
	echo
	echo "Median of $RUNS warm runs, ms. cudoctor: $B/cudoctor ($("$B/cudoctor" --version | head -1)); $("$READOBJ" --version | grep -i 'llvm version' | sed 's/^ *//')"
	echo
	echo "| file | MB | bundles | code objects | arch --gpu gfx1100 | arch --llvm-offloading | llvm-readobj --offloading | same lines | md5sum |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"
	for f in "$C/rocm-pjrt7/xla_rocm_plugin.so" "$C/rocm-pjrt60/xla_rocm_plugin.so" "$WHEEL"; do
		[ -f "$f" ] || continue
		mb=$(($(stat -c %s "$f") / 1000000))
		counts=$("$B/cudoctor" --json arch "$f" | python3 -c "
import json, sys
fs = json.load(sys.stdin)['files']
print(sum(x.get('offload_bundles', 0) for x in fs), sum(len(x.get('code_objects', [])) for x in fs))")
		a=$(ms "$B/cudoctor" arch --gpu gfx1100 "$f")
		l=$(ms "$B/cudoctor" arch --llvm-offloading "$f")
		case $f in
		*.whl) r="- (reads no zip)" same="-" ;;
		*)
			r=$(ms "$READOBJ" --offloading "$f")
			if [ "$("$B/cudoctor" arch --llvm-offloading "$f" | md5sum)" = "$("$READOBJ" --offloading "$f" | md5sum)" ]; then
				same=yes
			else
				same=NO
			fi
			;;
		esac
		m=$(ms md5sum "$f")
		echo "| $(basename "$f") ($(basename "$(dirname "$f")")) | $mb | ${counts% *} | ${counts#* } | $a | $l | $r | $same | $m |"
	done
} >"$out"
cat "$out"
