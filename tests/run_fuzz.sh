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
	# the file parsers (whose cost once grew with the square of the input) get inputs of up to
	# 4 MiB (safetensors, JSON parsed by jansson under ASan at ~4 s per MiB: 1 MiB, inside the
	# 10 s limit per input); the others libFuzzer's default, from their seeds
	case $name in
	ar|cubin|cubin_attrs|decompress|devcode|elf|fatbin|gguf|ptx) max_len=-max_len=4194304 ;;
	safetensors) max_len=-max_len=1048576 ;;
	*) max_len= ;;
	esac
	if (cd build-fuzz/findings && "$OLDPWD/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		$max_len -print_final_stats=0 "$work" >"$work.log" 2>&1); then
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
