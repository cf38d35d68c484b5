#!/bin/sh
# Two cudoctor binaries' `--json doctor` against a bare dlopen + cuInit process (bench/cuinit.c),
# interleaved run by run so the machine's drift hits all three alike; medians of N runs.
# Run by hand on a GPU machine, never in CI:
#   sh bench/doctor_cmp.sh OLD_CUDOCTOR NEW_CUDOCTOR [N]
set -u
old=$1 new=$2 n=${3:-31}
here=$(dirname "$0")
cuinit=$(mktemp /tmp/cuinit.XXXXXX); trap 'rm -f "$cuinit" "$cuinit".*' EXIT
cc -O2 -o "$cuinit" "$here/cuinit.c" -ldl || { echo "cannot build $here/cuinit.c" >&2; exit 3; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { s=$(now_us); "$@" >/dev/null 2>&1; e=$(now_us); echo $((e - s)); }
for w in 1 2; do "$old" --json doctor >/dev/null 2>&1; "$new" --json doctor >/dev/null 2>&1; "$cuinit" >/dev/null 2>&1; done
: >"$cuinit.o"; : >"$cuinit.n"; : >"$cuinit.c"
i=0
while [ "$i" -lt "$n" ]; do
	timed "$old" --json doctor >>"$cuinit.o"
	timed "$new" --json doctor >>"$cuinit.n"
	timed "$cuinit" >>"$cuinit.c"
	i=$((i + 1))
done
o=$(med "$cuinit.o") nw=$(med "$cuinit.n") c=$(med "$cuinit.c")
echo "median us of $n: doctor_old=$o doctor_new=$nw cuinit=$c"
awk -v o="$o" -v n="$nw" -v c="$c" 'BEGIN { printf "old/cuinit %.3f new/cuinit %.3f new/old %.3f\n", o / c, n / c, n / o }'
