#!/bin/sh
# Runs each libFuzzer harness in DIR for SECONDS over a scratch copy of its seed corpus
# (tests/fuzz/corpus/NAME). A crash, leak or timeout is a failure; its input is kept in
# build-fuzz/findings/ and named in the output.
set -u
dir=$1 seconds=$2
passed=0 failed=0
mkdir -p build-fuzz/findings
for h in "$dir"/fuzz_*; do
	[ -x "$h" ] || continue
	name=$(basename "$h" | sed 's/^fuzz_//')
	work=$(mktemp -d)
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	if (cd build-fuzz/findings && "$OLDPWD/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=0 "$work" >"$work.log" 2>&1); then
		passed=$((passed + 1))
		echo "  fuzz_$name: clean for ${seconds}s ($(grep -c . "$work.log" >/dev/null; grep -o 'exec/s: [0-9]*' "$work.log" | tail -n 1))"
	else
		failed=$((failed + 1))
		echo "  fuzz_$name: FOUND A PROBLEM"; grep -E 'ERROR|SUMMARY|Test unit written' "$work.log" | head -n 5 | sed 's/^/    /'
	fi
	rm -rf "$work" "$work.log"
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
