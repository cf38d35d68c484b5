#!/bin/sh
# arch_cmp.sh [BUILD] [RUNS]: `cudoctor arch` against `cuobjdump --list-elf --list-ptx` and
# against `md5sum` (reading every byte once) on the same large files; `arch --all-sections`
# (every data section searched for containers, not only .cask_resource, .ldata, .rodata, .data), in the same run, warm
# (one untimed run each first), RUNS runs each (default 5), the median in milliseconds.
# Files: libcublasLt.so.13 ($CUBLASLT, else the toolkit's), torch 2.11.0's libtorch_cuda.so
# (fetched member by member by tests/wheels/fetch_member.py), and NVIDIA's cuFFT wheel for
# Linux (193 MB), all cached in ~/.cache/cudoctor-test/bench. cuobjdump: $CUOBJDUMP, else the
# one tests/wheels/pe_files.py unpacked from NVIDIA's nvidia-cuda-cuobjdump wheel.
# Writes bench/results/arch_cmp_HOST.md and prints it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$here/build}
RUNS=${2:-5}
C=${HOME:-/tmp}/.cache/cudoctor-test
mkdir -p "$C/bench"
CUOBJDUMP=${CUOBJDUMP:-$C/pe-files/cuobjdump}
[ -x "$CUOBJDUMP" ] || python3 "$here/tests/wheels/pe_files.py" "$C/pe-files" >/dev/null
CUBLASLT=${CUBLASLT:-$(ls /usr/local/cuda/lib64/libcublasLt.so.13 /usr/local/cuda-13*/lib*/libcublasLt.so.13 2>/dev/null | head -1)}
python3 "$here/tests/wheels/fetch_member.py" torch 2.11.0 cp311-cp311-manylinux_2_28_x86_64 "$C/torch-2.11.0" \
	torch/version.py torch/lib/libtorch_cuda.so >/dev/null
WHEEL=$(python3 -c "
import sys; sys.path.insert(0, '$here/tests/wheels')
from pe_files import fetch_wheel
print(fetch_wheel('nvidia-cufft-cu12', '11.3.3.83', 'manylinux2014_x86_64', '$C/bench'))")

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

out=$here/bench/results/arch_cmp_$(hostname).md
{
	echo "# arch vs cuobjdump vs md5sum, $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
	echo
	echo "Median of $RUNS warm runs, ms. cudoctor: $B/cudoctor; cuobjdump: $("$CUOBJDUMP" --version | tail -1)"
	echo
	echo "| file | MB | arch | arch --all-sections | arch --cuobjdump | cuobjdump --list-elf --list-ptx | md5sum |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	for f in "$CUBLASLT" "$C/torch-2.11.0/libtorch_cuda.so" "$WHEEL"; do
		[ -n "$f" ] && [ -f "$f" ] || continue
		mb=$(($(stat -c %s "$f") / 1000000))
		a=$(ms "$B/cudoctor" arch --gpu sm_90 --driver 580.65 "$f")
		e=$(ms "$B/cudoctor" arch --all-sections --gpu sm_90 --driver 580.65 "$f")
		case $f in
		*.whl) o="- (reads no zip)" ;;
		*) o=$(ms "$CUOBJDUMP" --list-elf --list-ptx "$f") ;;
		esac
		c=$(ms "$B/cudoctor" arch --cuobjdump "$f")
		m=$(ms md5sum "$f")
		echo "| $(basename "$f") | $mb | $a | $e | $c | $o | $m |"
	done
} >"$out"
cat "$out"
