#!/bin/sh
# Times `cudoctor doctor` against its floor (a bare process doing dlopen + cuInit, bench/cuinit.c)
# and against `python -m torch.utils.collect_env`: wall clock per process, median of N runs after
# one warm-up, no hyperfine. Run by hand on a GPU machine, never in CI:
#   sh bench/doctor.sh [path/to/cudoctor] [N] [N_COLLECT_ENV]
# Prints one line per contender and a last line "ratio doctor/cuinit: X.XX".
set -u
CUDOCTOR=${1:-build/cudoctor}
N=${2:-21}
NC=${3:-3}
here=$(dirname "$0")
CUINIT=${CUINIT:-$here/cuinit}
PYTHON=${PYTHON:-python3}

if [ ! -x "$CUINIT" ]; then
	CUINIT=$(mktemp /tmp/cuinit.XXXXXX)
	trap 'rm -f "$CUINIT"' EXIT
	cc -O2 -o "$CUINIT" "$here/cuinit.c" -ldl || { echo "cannot build $here/cuinit.c" >&2; exit 3; }
fi

now_us() { echo $(( $(date +%s%N) / 1000 )); }

# median_ms N CMD...: runs CMD once to warm up, then N times; prints the median in ms (3 decimals)
median_ms() {
	n=$1; shift
	"$@" >/dev/null 2>&1
	i=0
	while [ "$i" -lt "$n" ]; do
		s=$(now_us); "$@" >/dev/null 2>&1; e=$(now_us)
		echo $((e - s))
		i=$((i + 1))
	done | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f\n", a[int((NR + 1) / 2)] / 1000 }'
}

echo "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
echo "cuinit probe: $("$CUINIT" 2>&1)"
echo "doctor exit status: $("$CUDOCTOR" doctor >/dev/null 2>&1; echo $?)"
d=$(median_ms "$N" "$CUDOCTOR" doctor)
c=$(median_ms "$N" "$CUINIT")
j=$(median_ms "$N" "$CUDOCTOR" --json doctor)
echo "cudoctor doctor:        $d ms (median of $N)"
echo "cudoctor --json doctor: $j ms (median of $N)"
echo "bare cuInit process:    $c ms (median of $N)"
if "$PYTHON" -c 'import torch.utils.collect_env' >/dev/null 2>&1; then
	t=$(median_ms "$NC" "$PYTHON" -m torch.utils.collect_env)
	echo "torch collect_env:      $t ms (median of $NC)"
	echo "ratio collect_env/doctor: $(awk -v a="$t" -v b="$d" 'BEGIN { printf "%.1f", a / b }')"
else
	echo "torch collect_env:      skipped (no torch for $PYTHON)"
fi
echo "ratio doctor/cuinit: $(awk -v a="$d" -v b="$c" 'BEGIN { printf "%.2f", a / b }')"
