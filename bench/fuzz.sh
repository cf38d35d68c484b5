#!/bin/sh
# Long fuzzing runs (by hand, never in CI): each libFuzzer harness for SECONDS over a scratch
# copy of its seed corpus, JOBS harnesses at a time. Needs the fuzz build (`make check` makes
# build-fuzz/). Usage: sh bench/fuzz.sh [SECONDS=600] [JOBS=2] [HARNESS...]
# Prints one line per harness (executions, clean or what it found) and a closing count.
set -u
seconds=${1:-600}; jobs=${2:-2}; shift 2 2>/dev/null || shift $#
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d); trap 'rm -rf "$bin"' EXIT
cp "$root"/build-fuzz/fuzz/fuzz_* "$bin"/ || { echo "no fuzz build: run make check first"; exit 2; }
names=${*:-$(cd "$bin" && ls fuzz_* | sed 's/^fuzz_//')}
out=${OUT_DIR:-$root/build-fuzz/long}
mkdir -p "$out"
run_one() {
	n=$1; work=$(mktemp -d)
	[ -d "$root/tests/fuzz/corpus/$n" ] && cp -r "$root/tests/fuzz/corpus/$n/." "$work/"
	(cd "$out" && "$bin/fuzz_$n" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 "$work" >"$out/$n.log" 2>&1)
	rc=$?
	execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/$n.log" | tail -n 1)
	if [ $rc -eq 0 ]; then echo "fuzz_$n: clean for ${seconds}s, ${execs:-?} executions"
	else echo "fuzz_$n: FOUND A PROBLEM (see $out/$n.log)"; fi
	rm -rf "$work"
}
running=0
for n in $names; do
	run_one "$n" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then wait; running=0; fi
done
wait
