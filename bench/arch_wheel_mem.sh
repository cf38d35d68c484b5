#!/bin/sh
# arch_wheel_mem.sh BEFORE AFTER [WHEEL...]: peak resident memory and wall time of
# `cudoctor arch --gpu 9.0 --driver 13.0 WHEEL` with two builds (BEFORE: a cudoctor that
# inflates each member whole; AFTER: one that reads ELF and PE members from a stream), from
# /usr/bin/time -v, one run each, and whether their reports match (the report's date line
# aside); also `arch --kernels` with AFTER, which still holds each member whole. Default wheels:
# NVIDIA's cuFFT for Linux (193 MB; tests/wheels/pe_files.py fetches it) and torch 2.7.1's
# manylinux x86_64 wheel (821 MB, libtorch_cuda.so 985 MB inside; fetched with pip download),
# cached in ~/.cache/cudoctor-test/bench. Writes bench/results/arch_wheel_mem_HOST.md and
# prints it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE AFTER [WHEEL...]" >&2; exit 2; }
BEFORE=$1
AFTER=$2
shift 2
C=${HOME:-/tmp}/.cache/cudoctor-test/bench
mkdir -p "$C"
if [ $# -eq 0 ]; then
	cufft=$(python3 -c "
import sys; sys.path.insert(0, '$here/tests/wheels')
from pe_files import fetch_wheel
print(fetch_wheel('nvidia-cufft-cu12', '11.3.3.83', 'manylinux2014_x86_64', '$C'))")
	torch=$C/torch-2.7.1-cp311-cp311-manylinux_2_28_x86_64.whl
	[ -f "$torch" ] || pip download --no-deps --only-binary=:all: --python-version 3.11 \
		--platform manylinux_2_28_x86_64 torch==2.7.1 -d "$C" >/dev/null
	set -- "$cufft" "$torch"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "wall_s peak_MB" of one run of "$@", its report in $tmp/report
measure() {
	/usr/bin/time -v "$@" >"$tmp/report" 2>"$tmp/time" || true
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = t[n] + (n > 1 ? 60 * t[n - 1] : 0) }
		/Maximum resident set size/ { kb = $2 }
		END { printf "%.2f %.0f", s, kb / 1024 }' "$tmp/time"
}

out=$here/bench/results/arch_wheel_mem_$(hostname).md
{
	echo "# arch on wheels: peak memory, whole members against streamed ($(date -u +%Y-%m-%d), $(hostname), $(nproc) cores)"
	echo
	echo "| wheel | size | before: s, peak MB | after: s, peak MB | same report | after --kernels: s, peak MB |"
	echo "|---|---:|---:|---:|---|---:|"
	for w in "$@"; do
		set -- $(measure "$BEFORE" arch --gpu 9.0 --driver 13.0 "$w")
		b_s=$1 b_mb=$2
		grep -v '^  glibc' "$tmp/report" >"$tmp/before"
		set -- $(measure "$AFTER" arch --gpu 9.0 --driver 13.0 "$w")
		a_s=$1 a_mb=$2
		grep -v '^  glibc' "$tmp/report" >"$tmp/after"
		same=no
		cmp -s "$tmp/before" "$tmp/after" && same=yes
		set -- $(measure "$AFTER" arch --kernels --gpu 9.0 --driver 13.0 "$w")
		echo "| $(basename "$w") | $(($(stat -c %s "$w") / 1000000)) MB | $b_s, $b_mb | $a_s, $a_mb | $same | $1, $2 |"
	done
} >"$out"
cat "$out"
